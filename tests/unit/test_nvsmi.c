/* nvidia-smi --query-gpu CSV parsing against outputs shaped like real ones. */
#include "parse/nvsmi.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

/* DGX H100, driver 570, full field list, one line per GPU. */
static const char h100x8[] =
"0, GPU-3c5a7e2f-8b1d-4e6a-9f0c-2d7b8e4a1c63, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 5, 5, 5, 16, 16, 71.23, 700.00, 700.00, 700.00, 33, 81559, 0, 9.0\n"
"1, GPU-9a0d4b71-20c3-4f55-8e1a-6b3c9d2e7f04, NVIDIA H100 80GB HBM3, 00000000:2A:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 5, 5, 5, 16, 16, 69.87, 700.00, 700.00, 700.00, 31, 81559, 0, 9.0\n"
"2, GPU-5e2f8c13-7a4d-4b9e-a1c6-0f3d8b2a5e97, NVIDIA H100 80GB HBM3, 00000000:3A:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 5, 5, 5, 16, 16, 72.50, 700.00, 700.00, 700.00, 34, 81559, 0, 9.0\n"
"3, GPU-b71c0e9d-3f28-4a6b-8d5e-1c4a7f9b2e36, NVIDIA H100 80GB HBM3, 00000000:5D:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 5, 5, 5, 16, 16, 70.11, 700.00, 700.00, 700.00, 32, 81559, 0, 9.0\n"
"4, GPU-0d6e3a58-9c1b-4e72-b4f0-8a2d5c7e1b49, NVIDIA H100 80GB HBM3, 00000000:9A:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 5, 5, 5, 16, 16, 68.04, 700.00, 700.00, 700.00, 30, 81559, 0, 9.0\n"
"5, GPU-f4a91b27-6e0c-4d38-9b5a-3e7c1d0f8a62, NVIDIA H100 80GB HBM3, 00000000:AB:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 5, 5, 5, 16, 16, 73.96, 700.00, 700.00, 700.00, 35, 81559, 0, 9.0\n"
"6, GPU-2b8d6f40-1a9e-4c73-a5d2-7f0b3e6c9d18, NVIDIA H100 80GB HBM3, 00000000:BA:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 1, 5, 5, 16, 16, 67.42, 700.00, 700.00, 700.00, 29, 81559, 0, 9.0\n"
"7, GPU-c93e5a16-4d7f-4b20-8e6c-9a1f2b5d0e73, NVIDIA H100 80GB HBM3, 00000000:DB:00.0, 570.133.20, 96.00.99.00.01, Enabled, Enabled, 5, 5, 5, 8, 16, 74.88, 700.00, 700.00, 700.00, 36, 81559, 100, 9.0\n";

/* HGX B300 (8-GPU board, Gen6) and a GB300 tray (Grace, PCI domain 0008). */
static const char b300[] =
"0, GPU-7d1e9c42-5b3a-4f86-9e20-c4a8d1f6b375, NVIDIA B300 SXM6 AC, 00000000:17:00.0, 580.65.06, 97.10.3F.00.0B, Enabled, Enabled, 6, 6, 6, 16, 16, 182.47, 1100.00, 1100.00, 1100.00, 38, 275040, 0, 10.3\n"
"1, GPU-4a0f2e87-1c6d-4b93-a7e5-8d3b0c9f2a14, NVIDIA B300 SXM6 AC, 00000000:3D:00.0, 580.65.06, 97.10.3F.00.0B, Enabled, Enabled, 6, 6, 6, 16, 16, 179.02, 1100.00, 1100.00, 1100.00, 37, 275040, 0, 10.3\n";
static const char gb300[] =
"0, GPU-e18b3d60-9f2a-4c57-b0d4-6a7e5c1f8b29, NVIDIA GB300, 00000008:01:00.0, 580.82.07, 97.10.4A.00.05, Enabled, Enabled, 5, 6, 6, 16, 16, 211.30, 1400.00, 1400.00, 1400.00, 41, 284208, 3, 10.3\r\n"
"1, GPU-36c9a0f5-2e8b-4d71-93a6-b5f0e4d2c817, NVIDIA GB300, 00000009:01:00.0, 580.82.07, 97.10.4A.00.05, Enabled, Enabled, 5, 6, 6, 16, 16, 208.75, 1400.00, 1400.00, 1400.00, 40, 284208, 0, 10.3\r\n";

/* Legacy list (driver 470, A100 PCIe), with the no-value spellings. */
static const char a100_na[] =
"0, GPU-8f2c6a31-0d9e-4b57-a3c1-7e5f9b0d2a64, NVIDIA A100-PCIE-40GB, 00000000:3B:00.0, 470.256.02, 92.00.25.00.08, Disabled, Enabled, 4, 4, 16, 16, [N/A], 250.00, 250.00, [Not Supported], 36, 40536, 0\n"
"1, GPU-1b7e4d92-6a3f-4c08-b2e9-5d0a8c7f3e16, NVIDIA A100-PCIE-40GB, 00000000:AF:00.0, 470.256.02, 92.00.25.00.08, Disabled, [GPU requires reset], [Unknown Error], 4, 16, 16, N/A, 250.00, 250.00, [Not Supported], 35, 40536, [N/A]\n";

static json_t *row(json_t *a, size_t i)
{
	return json_array_get(a, i);
}

static const char *sget(json_t *a, size_t i, const char *k)
{
	return json_string_value(json_object_get(row(a, i), k));
}

static void test_query_arg(void)
{
	char *q = nvsmi_query_arg(nvsmi_fields);
	T_OK(str_starts(q, "--query-gpu=index,uuid,name,pci.bus_id,"), "query arg prefix");
	T_OK(str_ends(q, ",utilization.gpu,compute_cap"), "query arg suffix");
	T_OK(strchr(q, ' ') == NULL, "no blanks in query arg");
	free(q);
	T_INTEQ(nvsmi_nfields(nvsmi_fields), 21, "21 fields");
	T_INTEQ(nvsmi_nfields(nvsmi_fields_legacy), 19, "19 legacy fields");
	q = nvsmi_query_arg(nvsmi_fields_legacy);
	T_OK(!strstr(q, "gpumax") && !strstr(q, "compute_cap"), "legacy drops gpumax and compute_cap");
	free(q);
}

static void test_h100(void)
{
	char *err = (char *)"untouched";
	json_t *a = nvsmi_parse_csv(h100x8, strlen(h100x8), nvsmi_fields, &err);
	T_OK(a && err == NULL, "h100: parsed, no error");
	T_INTEQ(json_array_size(a), 8, "h100: 8 rows");
	T_INTEQ(json_object_size(row(a, 0)), 21, "h100: 21 keys per row");
	T_INTEQ(json_integer_value(json_object_get(row(a, 3), "index")), 3, "index is an integer");
	T_STREQ(sget(a, 0, "name"), "NVIDIA H100 80GB HBM3", "name");
	T_STREQ(sget(a, 0, "uuid"), "GPU-3c5a7e2f-8b1d-4e6a-9f0c-2d7b8e4a1c63", "uuid");
	T_STREQ(sget(a, 7, "pci.bus_id"), "00000000:DB:00.0", "bus id");
	T_STREQ(sget(a, 0, "driver_version"), "570.133.20", "driver version");
	T_STREQ(sget(a, 0, "vbios_version"), "96.00.99.00.01", "vbios");
	T_STREQ(sget(a, 0, "persistence_mode"), "Enabled", "Enabled kept as string");
	T_STREQ(sget(a, 0, "compute_cap"), "9.0", "compute_cap stays a string");
	T_INTEQ(json_integer_value(json_object_get(row(a, 6), "pcie.link.gen.current")), 1, "gen current");
	T_INTEQ(json_integer_value(json_object_get(row(a, 7), "pcie.link.width.current")), 8, "width current");
	T_OK(json_is_real(json_object_get(row(a, 0), "power.draw")), "power.draw is real");
	T_OK(json_real_value(json_object_get(row(a, 0), "power.draw")) > 71.2 &&
	     json_real_value(json_object_get(row(a, 0), "power.draw")) < 71.3, "power.draw value");
	T_OK(json_real_value(json_object_get(row(a, 0), "power.limit")) == 700.0, "power.limit 700");
	T_INTEQ(json_integer_value(json_object_get(row(a, 0), "memory.total")), 81559, "memory.total");
	T_INTEQ(json_integer_value(json_object_get(row(a, 7), "utilization.gpu")), 100, "utilization");
	json_decref(a);

	/* The legacy list must reject the 21-column rows: wrong count. */
	a = nvsmi_parse_csv(h100x8, strlen(h100x8), nvsmi_fields_legacy, &err);
	T_OK(!a && err, "21 columns against 19 fields fails");
	T_OK(err && !strchr(err, '\n'), "error is one line");
	free(err);
}

static void test_blackwell(void)
{
	char *err = NULL;
	json_t *a = nvsmi_parse_csv(b300, strlen(b300), nvsmi_fields, &err);
	T_INTEQ(json_array_size(a), 2, "b300: 2 rows");
	T_STREQ(sget(a, 1, "name"), "NVIDIA B300 SXM6 AC", "b300 name");
	T_STREQ(sget(a, 0, "compute_cap"), "10.3", "b300 compute_cap");
	T_INTEQ(json_integer_value(json_object_get(row(a, 0), "pcie.link.gen.gpumax")), 6, "gen6");
	T_INTEQ(json_integer_value(json_object_get(row(a, 0), "memory.total")), 275040, "b300 memory");
	json_decref(a);

	a = nvsmi_parse_csv(gb300, strlen(gb300), nvsmi_fields, &err);
	T_INTEQ(json_array_size(a), 2, "gb300: 2 rows (CRLF)");
	T_STREQ(sget(a, 1, "pci.bus_id"), "00000009:01:00.0", "gb300 bus id in domain 9");
	T_STREQ(sget(a, 1, "compute_cap"), "10.3", "gb300 compute_cap, no \\r left");
	T_OK(json_real_value(json_object_get(row(a, 0), "power.limit")) == 1400.0, "gb300 limit");
	json_decref(a);
}

static void test_na(void)
{
	char *err = NULL;
	json_t *a = nvsmi_parse_csv(a100_na, strlen(a100_na), nvsmi_fields_legacy, &err);
	T_OK(a && !err, "a100 legacy parsed");
	T_INTEQ(json_array_size(a), 2, "a100 2 rows");
	T_OK(json_is_null(json_object_get(row(a, 0), "power.draw")), "[N/A] -> null");
	T_OK(json_is_null(json_object_get(row(a, 0), "power.max_limit")), "[Not Supported] -> null");
	T_OK(json_is_null(json_object_get(row(a, 1), "ecc.mode.current")), "[GPU requires reset] -> null");
	T_OK(json_is_null(json_object_get(row(a, 1), "pcie.link.gen.current")), "[Unknown Error] -> null");
	T_OK(json_is_null(json_object_get(row(a, 1), "power.draw")), "bare N/A -> null");
	T_OK(json_is_null(json_object_get(row(a, 1), "utilization.gpu")), "last column [N/A] -> null");
	T_STREQ(sget(a, 0, "persistence_mode"), "Disabled", "Disabled kept");
	T_OK(json_object_get(row(a, 0), "compute_cap") == NULL, "no compute_cap in legacy rows");
	json_decref(a);
}

static void test_errors(void)
{
	static const char drv[] =
		"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
		"Make sure that the latest NVIDIA driver is installed and running.\n\n";
	static const char field[] = "Field \"pcie.link.gen.gpumax\" is not a valid field to query.\n\n";
	static const char nodev[] = "No devices were found\n";
	char *err = NULL;
	json_t *a;

	a = nvsmi_parse_csv(drv, strlen(drv), nvsmi_fields, &err);
	T_OK(!a && err && strstr(err, "couldn't communicate"), "driver failure -> error");
	T_OK(err && str_starts(err, "nvidia-smi: "), "driver failure message quoted");
	free(err);

	a = nvsmi_parse_csv(field, strlen(field), nvsmi_fields, &err);
	T_OK(!a && err && strstr(err, "is not a valid field"), "invalid field -> error");
	free(err);

	a = nvsmi_parse_csv(nodev, strlen(nodev), nvsmi_fields, &err);
	T_OK(!a && err && strstr(err, "No devices"), "no devices -> error");
	free(err);

	a = nvsmi_parse_csv("", 0, nvsmi_fields, &err);
	T_OK(!a && err && strcmp(err, "empty output") == 0, "empty -> error");
	free(err);
	a = nvsmi_parse_csv("\n \n\n", 5, nvsmi_fields, &err);
	T_OK(!a && err, "blank lines -> error");
	free(err);
	a = nvsmi_parse_csv(NULL, 0, nvsmi_fields, &err);
	T_OK(!a && err, "NULL text -> error");
	free(err);
	a = nvsmi_parse_csv(h100x8, strlen(h100x8), NULL, &err);
	T_OK(!a && err, "no fields -> error");
	free(err);

	/* Output capped mid-row by the runner: second row truncated. */
	size_t cut = (size_t)(strchr(h100x8, '\n') - h100x8) + 60;
	a = nvsmi_parse_csv(h100x8, cut, nvsmi_fields, &err);
	T_OK(!a && err && str_starts(err, "line 2: "), "truncated row -> error naming line 2");
	free(err);

	/* err may be NULL */
	a = nvsmi_parse_csv(drv, strlen(drv), nvsmi_fields, NULL);
	T_OK(!a, "NULL err pointer allowed");
}

static void test_lost_gpu(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *err = NULL;
	const char *nl = strchr(h100x8, '\n');

	sb_adds(&sb, "WARNING: infoROM is corrupted at gpu 0000:18:00.0\n");
	sb_add(&sb, h100x8, (size_t)(nl - h100x8) + 1);
	sb_adds(&sb, "Unable to determine the device handle for GPU0000:2A:00.0: Unknown Error\n");
	json_t *a = nvsmi_parse_csv(sb.buf, sb.len, nvsmi_fields, &err);
	T_INTEQ(json_array_size(a), 2, "lost gpu: healthy row + error row");
	T_STREQ(sget(a, 1, "pci.bus_id"), "0000:2A:00.0", "lost gpu bus id");
	T_OK(json_is_null(json_object_get(row(a, 1), "uuid")), "lost gpu other fields null");
	T_OK(sget(a, 1, "_error") && strstr(sget(a, 1, "_error"), "Unknown Error"), "_error kept");
	T_OK(json_object_get(row(a, 0), "_error") == NULL, "healthy row has no _error");
	json_decref(a);
	sb_free(&sb);
}

static void test_garbage(void)
{
	char *err = NULL;
	/* Invalid UTF-8 and control bytes in a string field must come out valid. */
	static const char bad[] = "0, GPU-x, NVIDIA \xff\xfe H100\x01, 00000000:18:00.0";
	static const char *const f4[] = { "index", "uuid", "name", "pci.bus_id", NULL };
	json_t *a = nvsmi_parse_csv(bad, sizeof bad - 1, f4, &err);
	T_OK(a != NULL, "garbage bytes parsed");
	T_STREQ(sget(a, 0, "name"), "NVIDIA ?? H100?", "sanitized name");
	char *dump = json_dumps(a, 0);
	T_OK(dump != NULL, "dumps as valid JSON");
	free(dump);
	json_decref(a);

	/* Numbers with units, huge integers, odd spellings stay strings. */
	static const char odd[] = "99999999999999999999999, 700.00 W, -3, 1e5, .5, 5., [\n";
	static const char *const f7[] = { "a", "b", "c", "d", "e", "f", "g", NULL };
	a = nvsmi_parse_csv(odd, sizeof odd - 1, f7, &err);
	T_OK(json_is_string(json_object_get(row(a, 0), "a")), "overflow -> string");
	T_STREQ(sget(a, 0, "b"), "700.00 W", "units kept as string");
	T_INTEQ(json_integer_value(json_object_get(row(a, 0), "c")), -3, "negative int");
	T_STREQ(sget(a, 0, "d"), "1e5", "exponent stays string");
	T_STREQ(sget(a, 0, "e"), ".5", ".5 string");
	T_STREQ(sget(a, 0, "f"), "5.", "5. string");
	T_STREQ(sget(a, 0, "g"), "[", "lone bracket string");
	json_decref(a);

	/* Too many rows is garbage, not a GPU count. */
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 1100; i++)
		sb_adds(&sb, "1, 2, 3, 4\n");
	a = nvsmi_parse_csv(sb.buf, sb.len, f4, &err);
	T_OK(!a && err && strstr(err, "rows"), "too many rows -> error");
	free(err);
	sb_free(&sb);
}

int main(void)
{
	test_query_arg();
	test_h100();
	test_blackwell();
	test_na();
	test_errors();
	test_lost_gpu();
	test_garbage();
	return t_done();
}
