/* interp_cases.h — test_interp.c's tables of tricky programs, shared so that other engines (the
 * JIT) run exactly the same cases against the same expectations and environment.
 *
 * A case's program is conformance-assembler text run with r1 = arg (INTERP_CASE_PKT stands for
 * the address of interp_case_packet, which LD_ABS/LD_IND read through interp_case_env).
 */
#ifndef USERBPF_TESTS_INTERP_CASES_H
#define USERBPF_TESTS_INTERP_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "exec/interp.h"

#define INTERP_CASE_PKT UINT64_C(0x9e7a9e7a9e7a)

struct sem_case {
	const char *name;
	const char *src;
	uint64_t arg;	 /* r1 */
	uint64_t expect; /* r0 */
};

/* Programs that must end with a run-time error status (and r0 = 0), never a crash. */
struct err_case {
	const char *name;
	const char *src;
	int err;
};

extern const struct sem_case interp_sem_cases[];
extern const size_t interp_n_sem_cases;
extern const struct err_case interp_err_cases[];
extern const size_t interp_n_err_cases;
extern const struct interp_env interp_case_env;
extern const void *const interp_case_packet;

#endif
