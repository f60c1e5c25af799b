/* Command-line numbers: sizes (1024-based, fio(1) "int" suffixes K M G T P
 * E with optional i / B), counts, durations, ports, the port of a URL.
 * Every refusal is one line naming the option; nothing wraps or clamps. */
#include "tap.h"
#include "core/numparse.h"

#include <stdint.h>
#include <string.h>

static char err[NP_ERR_MAX];

static int one_line_naming(const char *opt)
{
	return strstr(err, opt) == err && !strchr(err, '\n') && strlen(err) < NP_ERR_MAX - 1;
}

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int rc = np_size("--size", s, 1, UINT64_MAX, &v, err);
	T_OK(rc == 0 && v == want, "size '%s' = %llu (got %llu, %s)", s, (unsigned long long)want,
	     (unsigned long long)v, rc ? err : "ok");
}

static void size_bad(const char *s, uint64_t lo, uint64_t hi, const char *why)
{
	uint64_t v = 12345;
	err[0] = 0;
	int rc = np_size("--size", s, lo, hi, &v, err);
	T_OK(rc == -1 && v == 12345 && one_line_naming("--size") && strstr(err, why),
	     "size '%s' refused (%s): %s", s, why, err);
}

static void test_sizes(void)
{
	/* fio(1) examples with the default kb_base=1024: 4 KiB = 4096, 4096b,
	 * 4096B, 4k, 4kb, 4kB, 4K, 4KB; 1 MiB = 1048576, 1m, 1024k */
	const char *four_k[] = { "4096", "4096b", "4096B", "4k", "4kb", "4kB", "4K", "4KB" };
	for (size_t i = 0; i < sizeof four_k / sizeof *four_k; i++)
		size_ok(four_k[i], 4096);
	size_ok("1m", 1048576);
	size_ok("1024k", 1048576);
	/* the IEC spellings mean the same in cmax (documented: not fio's KiB=1000) */
	size_ok("1Mi", 1048576);
	size_ok("1MiB", 1048576);
	size_ok("1mib", 1048576);
	size_ok("32M", UINT64_C(32) << 20);
	size_ok("1G", UINT64_C(1) << 30);
	size_ok("1T", UINT64_C(1) << 40);
	size_ok("2P", UINT64_C(2) << 50);
	size_ok("1E", UINT64_C(1) << 60);
	size_ok("15E", UINT64_C(15) << 60);
	size_ok("1.5G", UINT64_C(3) << 29);
	size_ok("0.5K", 512);
	size_ok("007", 7);
	size_ok("18446744073709551615", UINT64_MAX);

	size_bad("0", 1, NP_PIB, "out of range");
	size_bad("1E", 1, NP_PIB, "out of range");
	size_bad("16E", 1, UINT64_MAX, "out of range");          /* 2^64: does not fit */
	size_bad("18446744073709551616", 1, UINT64_MAX, "out of range");
	size_bad("99999999999999999999", 1, NP_PIB, "out of range");
	size_bad("99999999999999999999999999999T", 1, UINT64_MAX, "out of range");
	size_bad("1025", 1, 1024, "out of range");
	size_bad("4095", 4096, NP_GIB, "out of range");
	size_bad("0.3K", 1, NP_PIB, "whole number of bytes");
	size_bad("1.5", 1, NP_PIB, "whole number of bytes");
	const char *junk[] = { "", "-1", "+1", " 1", "1 ", "1Q", "1KK", "1iB", "1KiBB", "0x10", "1e3", "inf",
			       "nan", "1.", ".5", "1,5", "K", "1Z", "1Y", "1Kb/s" };
	for (size_t i = 0; i < sizeof junk / sizeof *junk; i++)
		size_bad(junk[i], 1, NP_PIB, "wants a size");
	size_bad("1.123456789012345678K", 1, NP_PIB, "decimals");

	/* a hostile argument never reaches the message raw */
	uint64_t v;
	np_size("--size", "1\x1b]0;owned\x07", 1, NP_PIB, &v, err);
	T_OK(!strchr(err, 0x1b) && !strchr(err, 0x07), "escape bytes shown escaped: %s", err);
	char longarg[300];
	memset(longarg, '9', sizeof longarg - 1);
	longarg[sizeof longarg - 1] = 0;
	np_size("--size", longarg, 1, NP_PIB, &v, err);
	T_OK(strlen(err) < 160 && strstr(err, "..."), "a long argument is cut: %s", err);
	T_OK(np_size("--size", NULL, 1, 2, &v, err) == -1 && one_line_naming("--size"), "NULL refused");
}

static void test_fmt(void)
{
	char b[32];
	T_STREQ(np_fmt_size(0, b, sizeof b), "0 B", "0 B");
	T_STREQ(np_fmt_size(1023, b, sizeof b), "1023 B", "below 1 KiB in bytes");
	T_STREQ(np_fmt_size(32u << 20, b, sizeof b), "32 MiB", "whole MiB");
	T_STREQ(np_fmt_size(UINT64_C(3) << 29, b, sizeof b), "1.50 GiB", "fractional GiB");
	T_STREQ(np_fmt_size(NP_PIB, b, sizeof b), "1 PiB", "1 PiB");
	T_STREQ(np_fmt_size(UINT64_C(1) << 60, b, sizeof b), "1 EiB", "1 EiB");
	T_STREQ(np_fmt_size(UINT64_MAX, b, sizeof b), "16.00 EiB", "the largest");
}

static void test_counts(void)
{
	long v = -7;
	T_OK(np_count("--clients", "8", 1, 1024, &v, err) == 0 && v == 8, "8 clients");
	T_OK(np_count("--clients", "1024", 1, 1024, &v, err) == 0 && v == 1024, "the maximum itself");
	const char *bad[] = { "0", "1025", "-1", "", "1.0", "8 ", " 8", "+8", "0x8", "8k", "99999999999999999999",
			      "9223372036854775808" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		v = -7;
		int rc = np_count("--clients", bad[i], 1, 1024, &v, err);
		T_OK(rc == -1 && v == -7 && one_line_naming("--clients") && strstr(err, "1 to 1024"),
		     "count '%s' refused with the range: %s", bad[i], err);
	}
	T_OK(np_count("--large-objects", "0", 0, 1000, &v, err) == 0 && v == 0, "0 where the range allows it");
	int iv;
	T_OK(np_int("--iodepth", "16", 1, 4096, &iv, err) == 0 && iv == 16, "into an int");
	T_OK(np_int("--iodepth", "4097", 1, 4096, &iv, err) == -1, "int range");
}

static void test_seconds(void)
{
	long v;
	T_OK(np_seconds("--timeout", "90", 1, 86400, &v, err) == 0 && v == 90, "plain seconds");
	T_OK(np_seconds("--timeout", "90s", 1, 86400, &v, err) == 0 && v == 90, "s");
	T_OK(np_seconds("--timeout", "5m", 1, 86400, &v, err) == 0 && v == 300, "m");
	T_OK(np_seconds("--timeout", "1h", 1, 86400, &v, err) == 0 && v == 3600, "h");
	T_OK(np_seconds("--timeout", "24h", 1, 86400, &v, err) == 0 && v == 86400, "the maximum as hours");
	const char *bad[] = { "0", "25h", "86401", "abc", "", "-5", "5 m", "5ms", "5d", "1.5m", "5M",
			      "99999999999999999999h", "153722867280912931h" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		T_OK(np_seconds("--timeout", bad[i], 1, 86400, &v, err) == -1 && one_line_naming("--timeout"),
		     "seconds '%s' refused: %s", bad[i], err);
	T_OK(np_seconds("--wait-return", "0", 0, 604800, &v, err) == 0 && v == 0, "0 where allowed");
}

static void test_real(void)
{
	double d;
	T_OK(np_real("--endurance-minutes", "7.5", 0.001, 1440, &d, err) == 0 && d == 7.5, "7.5");
	T_OK(np_real("--endurance-minutes", "0.05", 0.001, 1440, &d, err) == 0 && d > 0.0499 && d < 0.0501, "0.05");
	const char *bad[] = { "0", "1441", "1e3", "inf", "nan", "-1", ".5", "5.", "7,5", "", "0x1p3",
			      "1234567890123456" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		T_OK(np_real("--endurance-minutes", bad[i], 0.001, 1440, &d, err) == -1 &&
			     one_line_naming("--endurance-minutes"),
		     "real '%s' refused: %s", bad[i], err);
}

static void test_ports(void)
{
	int p = -1;
	T_OK(np_port("--vllm-port", "8000", &p, err) == 0 && p == 8000, "8000");
	T_OK(np_port("--vllm-port", "65535", &p, err) == 0 && p == 65535, "65535");
	const char *bad[] = { "0", "65536", "99999", "-1", "", "80a", "http" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		T_OK(np_port("--vllm-port", bad[i], &p, err) == -1 && one_line_naming("--vllm-port") &&
			     strstr(err, "1 to 65535"),
		     "port '%s' refused: %s", bad[i], err);

	struct {
		const char *url;
		int port;
	} good[] = {
		{ "http://127.0.0.1:9000", 9000 },
		{ "http://127.0.0.1:9000/", 9000 },
		{ "https://s3.example.com", 0 },
		{ "https://s3.example.com/path:with:colons", 0 },
		{ "http://user:pa:ss@host:8080/x", 8080 },
		{ "http://user:pass@host/x", 0 },
		{ "http://[::1]:9000/", 9000 },
		{ "http://[::1]/", 0 },
		{ "http://h:1?q=:99999", 1 },
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		p = -1;
		int rc = np_url_port("--endpoint", good[i].url, &p, err);
		T_OK(rc == 0 && p == good[i].port, "url %s -> port %d (got %d)", good[i].url, good[i].port, p);
	}
	const char *badurl[] = { "http://127.0.0.1:99999", "http://127.0.0.1:0", "http://h:/", "http://h:80x",
				 "http://[::1]:99999/", "http://[::1", "http://[::1]x", "http://u:secret@h:123456789",
				 "no-scheme:80" };
	for (size_t i = 0; i < sizeof badurl / sizeof *badurl; i++)
		T_OK(np_url_port("--endpoint", badurl[i], &p, err) == -1 && one_line_naming("--endpoint") &&
			     !strstr(err, "secret"),
		     "url %s refused, credentials not shown: %s", badurl[i], err);
}

int main(void)
{
	test_sizes();
	test_fmt();
	test_counts();
	test_seconds();
	test_real();
	test_ports();
	return t_done();
}
