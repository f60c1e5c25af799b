/* The few S3 responses `cmax bench s3` reads: ListObjectsV2, Initiate-
 * MultipartUpload, Error; and the AWS shared credentials file. Pure,
 * bounded parsers of untrusted server (or file) text: no entity expansion
 * beyond the five predefined ones and character references, no DTDs,
 * limited depth, size and key count. */
#ifndef CMAX_PARSE_S3XML_H
#define CMAX_PARSE_S3XML_H
#include <stddef.h>

#define S3XML_MAX_INPUT (16u << 20)
#define S3XML_MAX_DEPTH 16
#define S3XML_MAX_KEYS 100000

/* Walk the elements; cb gets the slash-joined path of local names
 * ("ListBucketResult/Contents/Key") and the decoded text directly inside
 * that element, once per end tag. A non-zero return from cb stops the
 * walk and is returned. 0, or -1 with *err (malloc'd) on malformed XML. */
typedef int (*s3xml_cb)(void *u, const char *path, const char *text, size_t tlen);
int s3xml_walk(const char *xml, size_t len, s3xml_cb cb, void *u, char **err);

/* <Error><Code>..</Code><Message>..</Message></Error>: 0 when the document
 * is an S3 error (code/message are malloc'd, NULL when absent), -1 when
 * it is not one (or not XML). */
int s3xml_error(const char *xml, size_t len, char **code, char **message);

/* InitiateMultipartUploadResult/UploadId, malloc'd; NULL when absent. */
char *s3xml_upload_id(const char *xml, size_t len);

struct s3xml_list {
	char **keys;
	long long *sizes;          /* -1 when a Contents had no Size */
	size_t nkeys;
	int truncated;             /* IsTruncated was "true" */
	char *next_token;          /* NextContinuationToken, or NULL */
	long key_count;            /* KeyCount, -1 when absent */
};
/* ListBucketResult (ListObjectsV2). 0, or -1 with *err. */
int s3xml_list(const char *xml, size_t len, struct s3xml_list *l, char **err);
void s3xml_list_free(struct s3xml_list *l);

/* ~/.aws/credentials INI text: the section [profile] (or [profile NAME],
 * as in ~/.aws/config). Fills malloc'd aws_access_key_id,
 * aws_secret_access_key, aws_session_token (NULL when absent). Returns 0
 * when the section exists, -1 when not. */
int aws_ini_profile(const char *text, size_t len, const char *profile, char **key, char **secret, char **token,
		    char **region);
#endif
