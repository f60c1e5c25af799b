/* The kernel's range lists ("0-55,112-167"): cpulist, has_cpu, the
 * nodelists, cpuset.cpus.effective, /sys/devices/system/cpu/online.
 * Malformed input yields -1, never a crash. */
#ifndef CMAX_PARSE_RANGELIST_H
#define CMAX_PARSE_RANGELIST_H

/* fn(first, last, arg) per range of a kernel range list; 0, or -1 when
 * malformed (the stride syntax "0-7:2/4" is for input only, not output). */
int range_list_each(const char *s, void (*fn)(long first, long last, void *arg), void *arg);
/* Number of ids in a kernel range list; -1 when malformed. */
long range_list_count(const char *s);
#endif
