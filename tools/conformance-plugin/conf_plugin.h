/* conf_plugin.h — running one bpf_conformance program through userbpf's embedding API.
 *
 * Shared by the plugin binary (main.c) and by the test suite, which runs every conformance file
 * through conf_plugin_run() so that what the tests measure is exactly what the plugin does.
 */
#ifndef USERBPF_CONF_PLUGIN_H
#define USERBPF_CONF_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

/* The helper id the suite calls as uBPF's "unwind" (call_unwind_fail.data, callx.data). */
#define CONF_UNWIND_HELPER 5

/* Loads cnt instructions as an extension program (ctx = a private writable copy of mem_len bytes
 * of mem, R2 = mem_len; helper 5 = unwind) through userbpf_prog_load_ext() and runs it once.
 * Returns 0 with *r0 set, or the load's negative errno with the verifier's reason in log (at most
 * log_size bytes, NUL-terminated; log may be NULL). */
int conf_plugin_run(const struct bpf_insn *insns, uint32_t cnt, const void *mem, size_t mem_len,
		    uint64_t *r0, char *log, size_t log_size);

/* Parses hex bytes ("b7 00 00 00", any white space between bytes, "%02x  " as the official
 * runner writes them) into a malloc'ed buffer: 0 with *out and *len set (*out NULL when there
 * are no bytes), or -EINVAL (not hex, or an odd digit), -ENOMEM. */
int conf_parse_hex(const char *text, uint8_t **out, size_t *len);

#endif
