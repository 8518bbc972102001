/* Verifier: callbacks (bpf_loop, bpf_for_each_map_elem) and constant strings (bpf_strncmp)
 * against the live kernel.
 *
 * A callback is a static function named by an LD_IMM64 BPF_PSEUDO_FUNC, which needs BTF
 * func_info (the harness's `funcs` cases).  The kernel walks the callback's body from the helper
 * call as often as it takes for its states to converge (6.8+): each exit of the callback returns
 * to the call, whose next visit either pushes another round or is pruned as already seen.
 */
#include "test.h"
#include "verifier_harness.h"

#define FUNC(R, OFF) BPF_LD_IMM64_RAW(R, BPF_PSEUDO_FUNC, OFF)
#define LOOP BPF_EMIT_CALL(BPF_FUNC_loop)
#define FOREACH BPF_EMIT_CALL(BPF_FUNC_for_each_map_elem)

static const struct vcase cases[] = {
	{ "loop_basic", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true },
	{ "loop_no_func_info", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, REJECT, "missing btf func_info", EINVAL },
	{ "loop_ret_2", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		BPF_MOV64_IMM(0, 2), EXIT }, REJECT, "At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]", EINVAL, .funcs = true },
	{ "loop_ret_unknown", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		BPF_MOV64_REG(0, 1), EXIT }, REJECT, "At callback return the register R0 has unknown scalar value should have been in [0, 1]", EINVAL, .funcs = true },
	{ "loop_r2_scalar", XDP, {
		BPF_MOV64_IMM(1, 10), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0),
		LOOP, R0_0, EXIT }, REJECT, "R2 type=scalar expected=func", EACCES, .funcs = true },
	{ "loop_ctx_counter", XDP, {
		BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_MOV64_IMM(1, 10), FUNC(2, 8), BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_MOV64_IMM(4, 0), LOOP,
		BPF_LDX_MEM(BPF_DW, 0, 10, -8), BPF_ALU64_IMM(BPF_AND, 0, 1), EXIT,
		BPF_LDX_MEM(BPF_DW, 1, 2, 0), BPF_ALU64_IMM(BPF_ADD, 1, 1), BPF_STX_MEM(BPF_DW, 2, 1, 0),
		R0_0, EXIT }, ACCEPT, .funcs = true },
	{ "loop_ctx_counter_log2", XDP, {
		BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_MOV64_IMM(1, 10), FUNC(2, 8), BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_MOV64_IMM(4, 0), LOOP,
		BPF_LDX_MEM(BPF_DW, 0, 10, -8), BPF_ALU64_IMM(BPF_AND, 0, 1), EXIT,
		BPF_LDX_MEM(BPF_DW, 1, 2, 0), BPF_ALU64_IMM(BPF_ADD, 1, 1), BPF_STX_MEM(BPF_DW, 2, 1, 0),
		R0_0, EXIT }, ACCEPT, .funcs = true, .log_level = 2, .full_log = true },
	/* the callback spills a scalar over the caller's unknown bytes: the round that returns is
	 * contained by the state kept at the call (6.18.y: E's unknown bytes accept any) */
	{ "loop_cb_spill_over_misc_log2", XDP, {
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), BPF_STX_MEM(BPF_W, 10, 0, -8),
		BPF_STX_MEM(BPF_W, 10, 0, -4), BPF_MOV64_IMM(1, 10), FUNC(2, 7), BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		BPF_MOV64_IMM(0, 5), BPF_STX_MEM(BPF_DW, 2, 0, 0), R0_0, EXIT }, ACCEPT, .funcs = true,
		.log_level = 2, .full_log = true },
	{ "loop_basic_log2", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true, .log_level = 2, .full_log = true },
	{ "loop_basic_log1", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true, .full_log = true },
	{ "loop_r3_read_in_cb", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		BPF_MOV64_REG(0, 3), EXIT }, REJECT, "R3 !read_ok", EACCES, .funcs = true },
	{ "loop_ctx_map_value", XDP, {
		LOOKUP(MAP_ARRAY), BPF_JMP_IMM(BPF_JEQ, 0, 0, 6), BPF_MOV64_IMM(1, 10), FUNC(2, 6),
		BPF_MOV64_REG(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, REJECT, "R3 type=map_value expected=fp", EACCES, .funcs = true },
	{ "foreach_array", XDP, {
		BPF_LD_MAP_FD(1, MAP_ARRAY), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_LDX_MEM(BPF_W, 0, 2, 0), BPF_STX_MEM(BPF_DW, 3, 0, 0), R0_0, EXIT }, ACCEPT,
		.funcs = true },
	{ "foreach_array_log2", XDP, {
		BPF_LD_MAP_FD(1, MAP_ARRAY), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_LDX_MEM(BPF_W, 0, 2, 0), BPF_STX_MEM(BPF_DW, 3, 0, 0), R0_0, EXIT }, ACCEPT,
		.funcs = true, .log_level = 2, .full_log = true },
	{ "foreach_key_write", XDP, {
		BPF_LD_MAP_FD(1, MAP_HASH), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_ST_MEM(BPF_W, 2, 0, 1), R0_0, EXIT }, REJECT, "write to change key R2 not allowed", EACCES, .funcs = true },
	{ "foreach_key_oob", XDP, {
		BPF_LD_MAP_FD(1, MAP_HASH), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_LDX_MEM(BPF_DW, 0, 2, 4), R0_0, EXIT }, REJECT, "R2 min value is outside of the allowed memory range", EACCES, .funcs = true },
	{ "foreach_value_oob", XDP, {
		BPF_LD_MAP_FD(1, MAP_HASH), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_LDX_MEM(BPF_DW, 0, 3, 8), R0_0, EXIT }, REJECT, "R3 min value is outside of the allowed memory range", EACCES, .funcs = true },
	{ "foreach_ringbuf", XDP, {
		BPF_LD_MAP_FD(1, MAP_RINGBUF), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		R0_0, EXIT }, REJECT, "callback function not allowed for map", 524, .funcs = true },
	{ "foreach_key_to_lookup", XDP, {
		BPF_LD_MAP_FD(1, MAP_HASH), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_LD_MAP_FD(1, MAP_HASH), BPF_EMIT_CALL(BPF_FUNC_map_delete_elem), R0_0, EXIT }, ACCEPT,
		.funcs = true },
	{ "foreach_ctx", XDP, {
		BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_LD_MAP_FD(1, MAP_HASH), FUNC(2, 7), BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_MOV64_IMM(4, 0), FOREACH,
		BPF_LDX_MEM(BPF_DW, 0, 10, -8), EXIT,
		BPF_LDX_MEM(BPF_DW, 0, 3, 0), BPF_STX_MEM(BPF_DW, 4, 0, 0), R0_0, EXIT }, ACCEPT,
		.funcs = true },
	{ "loop_func_in_main_exit", XDP, {
		FUNC(0, 2), EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true },
	{ "loop_func_spill", XDP, {
		FUNC(2, 9), BPF_STX_MEM(BPF_DW, 10, 2, -8), BPF_MOV64_IMM(1, 3), BPF_LDX_MEM(BPF_DW, 2, 10, -8),
		BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP, R0_0, EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true },
	{ "loop_cb_global", XDP, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, REJECT, "missing btf func_info", EINVAL },
	{ "loop_socket", SOCK, {
		BPF_MOV64_IMM(1, 10), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true },
	{ "loop_nested", XDP, {
		BPF_MOV64_IMM(1, 3), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		BPF_MOV64_IMM(1, 3), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true },
	/* a round count the verifier does not know (a map value's): rounds until convergence */
	{ "loop_unknown_count", XDP, {
		LOOKUP(MAP_ARRAY), BPF_JMP_IMM(BPF_JEQ, 0, 0, 8), BPF_LDX_MEM(BPF_DW, 1, 0, 0),
		BPF_ST_MEM(BPF_DW, 10, -16, 0), FUNC(2, 7), BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -16), BPF_MOV64_IMM(4, 0), LOOP,
		R0_0, EXIT,
		BPF_LDX_MEM(BPF_DW, 1, 2, 0), BPF_ALU64_IMM(BPF_ADD, 1, 3), BPF_STX_MEM(BPF_DW, 2, 1, 0),
		R0_0, EXIT }, ACCEPT, .funcs = true },
	/* the callback writes past the caller's ctx: the caller's stack bounds apply */
	{ "loop_ctx_oob", XDP, {
		BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_MOV64_IMM(1, 4), FUNC(2, 7), BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_MOV64_IMM(4, 0), LOOP, R0_0, EXIT,
		BPF_ST_MEM(BPF_DW, 2, 8, 1), R0_0, EXIT }, REJECT, "invalid write to stack R2 off=0 size=8", EACCES, .funcs = true },
	/* a NULL ctx dereferenced */
	{ "loop_null_ctx_deref", XDP, {
		BPF_MOV64_IMM(1, 4), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP, R0_0, EXIT,
		BPF_LDX_MEM(BPF_DW, 0, 2, 0), R0_0, EXIT }, REJECT, "R2 invalid mem access 'scalar'", EACCES, .funcs = true },
	/* flags not known to be 0: no inlining, no R4 precision; still accepted */
	{ "loop_flags_unknown", XDP, {
		BPF_LDX_MEM(BPF_W, 4, 1, XDPM(data)), BPF_MOV64_IMM(1, 4), FUNC(2, 5), BPF_MOV64_IMM(3, 0),
		LOOP, R0_0, EXIT,
		R0_0, EXIT }, ACCEPT, .funcs = true, .log_level = 2, .full_log = true },
	/* the callback's R0 is a pointer */
	{ "foreach_ret_ptr", XDP, {
		BPF_LD_MAP_FD(1, MAP_HASH), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_MOV64_REG(0, 3), EXIT }, REJECT, "R0 not a scalar value", EACCES, .funcs = true },
	/* the key passed on to a helper that reads a key */
	{ "foreach_key_to_helper", XDP, {
		BPF_LD_MAP_FD(1, MAP_HASH), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_LD_MAP_FD(1, MAP_HASH), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), R0_0, EXIT }, ACCEPT,
		.funcs = true },
	/* a queue has no elements to walk */
	{ "foreach_queue", XDP, {
		BPF_LD_MAP_FD(1, MAP_QUEUE), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		R0_0, EXIT }, REJECT, "callback function not allowed for map", 524, .funcs = true },
	/* map value pointer from the callback is the element's: writes within its size */
	{ "foreach_value_write", XDP, {
		BPF_LD_MAP_FD(1, MAP_ARRAY), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), FOREACH,
		R0_0, EXIT,
		BPF_ST_MEM(BPF_DW, 3, 40, 7), R0_0, EXIT }, ACCEPT, .funcs = true },
	/* a callback that makes a bpf-to-bpf call and uses its own stack */
	{ "loop_cb_calls_subprog", XDP, {
		BPF_MOV64_IMM(1, 4), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP, R0_0, EXIT,
		BPF_ST_MEM(BPF_DW, 10, -8, 1), BPF_LDX_MEM(BPF_DW, 1, 10, -8), BPF_CALL_REL(1), EXIT,
		BPF_MOV64_REG(0, 1), BPF_ALU64_IMM(BPF_AND, 0, 1), EXIT }, ACCEPT, .funcs = true },
	/* too deep: callbacks count as frames */
	{ "loop_too_deep", XDP, {
		BPF_MOV64_IMM(1, 2), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP, R0_0, EXIT,
		BPF_MOV64_IMM(1, 2), FUNC(2, -2), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP, R0_0, EXIT },
		REJECT, "the call stack of 9 frames is too deep", E2BIG, .funcs = true },
	/* callback with a non-constant argument of a lookup: array map stays maybe-NULL */
	{ "loop_cb_index_lookup", XDP, {
		BPF_MOV64_IMM(1, 4), FUNC(2, 6), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP, R0_0, EXIT,
		BPF_STX_MEM(BPF_W, 10, 1, -4), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4),
		BPF_LD_MAP_FD(1, MAP_ARRAY), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_ST_MEM(BPF_DW, 0, 0, 1), R0_0, EXIT }, ACCEPT, .funcs = true },
	/* csum_diff with NULL buffers: is a NULL memory argument made precise (as bpf_loop's ctx)? */
	{ "csum_diff_null_log2", XDP, {
		BPF_MOV64_IMM(1, 0), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0),
		BPF_MOV64_IMM(5, 0), BPF_EMIT_CALL(BPF_FUNC_csum_diff), R0_0, EXIT }, ACCEPT,
		.log_level = 2, .full_log = true },
};

/* Found by the soundness generator (seed 0x6b119a55, program 23157): a for_each callback whose
 * caller has a scalar linked to another (r8 = r0 + 65536, then with r0 overwritten): the rounds
 * converge at once, as the kernel's do (the comparison's fresh ids for unlinked scalars had
 * collided with linked scalars' ids, so that the same state never matched). */
/* r8 = r0 + 65536 (linked), then X, then for_each with a callback that writes constants */
#define LINKED_PROG(X)                                                                             \
	BPF_MOV64_REG(6, 1), BPF_MOV64_IMM(7, 8), BPF_MOV64_IMM(8, -1696710291),                   \
		BPF_MOV64_IMM(9, 255), BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),                    \
		BPF_MOV64_REG(8, 0), BPF_ALU64_IMM(BPF_ADD, 8, 65536), X,                          \
		BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_ST_MEM(BPF_DW, 10, -16, 0),                     \
		BPF_LD_MAP_FD(1, MAP_ARRAY), FUNC(2, 14), BPF_MOV64_REG(3, 10),                    \
		BPF_ALU64_IMM(BPF_ADD, 3, -16), BPF_MOV64_IMM(4, 0), FOREACH, BPF_MOV64_REG(9, 0), \
		BPF_LDX_MEM(BPF_W, 2, 6, 0), BPF_LDX_MEM(BPF_W, 3, 6, 4), BPF_MOV64_REG(4, 2),     \
		BPF_ALU64_IMM(BPF_ADD, 4, 21), BPF_JMP_REG(BPF_JGT, 4, 3, 1),                      \
		BPF_LDX_MEM(BPF_H, 7, 2, 19), BPF_MOV64_REG(0, 8), EXIT,                           \
		/* the callback */                                                                 \
		BPF_MOV64_REG(6, 4), BPF_MOV64_IMM(8, -161282592), BPF_MOV64_IMM(9, -978091185),   \
		BPF_LDX_MEM(BPF_W, 7, 2, 0), BPF_ATOMIC_OP(BPF_W, BPF_ADD | BPF_FETCH, 3, 7, 8),   \
		BPF_JMP_REG(BPF_JNE, 9, 8, 9), BPF_MOV64_IMM(9, 0), BPF_MOV64_IMM(9, 0),           \
		BPF_MOV64_IMM(9, 0), BPF_ALU64_IMM(BPF_ADD, 9, 1), BPF_JMP_IMM(BPF_JLT, 9, 11, -2), \
		BPF_ALU64_IMM(BPF_ADD, 9, 1), BPF_JMP_IMM(BPF_JLT, 9, 18, -5),                     \
		BPF_ALU64_IMM(BPF_ADD, 9, 1), BPF_JMP_IMM(BPF_JLT, 9, 8, -8), R0_0, EXIT

static const struct vcase linked_cases[] = {
	{ "foreach_caller_linked_scalars", XDP, { LINKED_PROG(BPF_MOV64_IMM(9, 255)) },
	  ACCEPT, .funcs = true, .log_level = 2, .full_log = true },
	{ "foreach_caller_linked_scalar_alone", XDP, { LINKED_PROG(BPF_MOV64_IMM(0, 0)) },
	  ACCEPT, .funcs = true, .log_level = 2, .full_log = true },
};

TEST(verifier_callback_linked_scalars)
{
	vcase_run_table("callback convergence", linked_cases, NCASES(linked_cases));
}

TEST(verifier_callbacks)
{
	vcase_run_table("callbacks", cases, NCASES(cases));
}

/* What the kernel's log shows of a callback call as a loop (6.18.y), pinned here so that it is
 * checked where the kernel's bpf() is not available too: the call is SCC 1 in the liveness
 * section; the round that returns to it equal to the state kept there is a back edge (counted in
 * peak_states: the kept state and the back edge); the marks are propagated again when the loop is
 * left.  (The kernel's figures: both cases are in the table, compared whole with its logs.) */
TEST(verifier_callback_scc)
{
	const struct vcase *c = NULL;
	static const char *const want[] = {
		"  1   5: .1234..... (85) call bpf_loop#181\n",
		"SCC enter (1)\n5: R4=0\n",
		"SCC backedge (1)\n\nfrom 9 to 5: safe\nSCC exit (1)\nframe 0: propagating r1,r3,r4\n",
		"total_states 1 peak_states 2 ",
	};
	/* the callback's spill over the caller's unknown bytes converges at the first return */
	static const char *const want_misc[] = {
		"SCC backedge (1)\n\nfrom 15 to 9: safe\nSCC exit (1)\n",
		"processed 16 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 2 ",
	};
	const char *log;
	int ret;

	for (size_t i = 0; i < NCASES(cases); i++)
		if (!strcmp(cases[i].name, "loop_basic_log2"))
			c = &cases[i];
	REQUIRE(c);
	log = vcase_userbpf_log(c, &ret);
	REQUIRE(ret >= 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(log, want[i]))
			test_fail(__FILE__, __LINE__, "no \"%s\" in the log:\n%s", want[i], log);
	for (size_t i = 0; i < NCASES(cases); i++)
		if (!strcmp(cases[i].name, "loop_cb_spill_over_misc_log2"))
			c = &cases[i];
	log = vcase_userbpf_log(c, &ret);
	REQUIRE(ret >= 0);
	for (size_t i = 0; i < sizeof(want_misc) / sizeof(want_misc[0]); i++)
		if (!strstr(log, want_misc[i]))
			test_fail(__FILE__, __LINE__, "no \"%s\" in the log:\n%s", want_misc[i], log);
}

/* bpf_strncmp(s1, n, s2): s2 must be a NUL-terminated constant of a frozen read-only map. */
#define STRNCMP(R3SETUP...)                                                                       \
	BPF_ST_MEM(BPF_DW, 10, -8, 0x41), BPF_MOV64_REG(1, 10), BPF_ALU64_IMM(BPF_ADD, 1, -8),     \
		BPF_MOV64_IMM(2, 8), R3SETUP, BPF_EMIT_CALL(BPF_FUNC_strncmp), EXIT

static const struct vcase str_cases[] = {
	{ "strncmp_rodata_unterminated", SOCK, {
		STRNCMP(BPF_LD_IMM64_RAW(3, BPF_PSEUDO_MAP_VALUE, MAP_RODATA)) }, REJECT, "string is not zero-terminated", EINVAL },
	{ "strncmp_not_frozen", SOCK, {
		STRNCMP(BPF_LD_IMM64_RAW(3, BPF_PSEUDO_MAP_VALUE, MAP_ARRAY_RO)) }, REJECT, "R3 does not point to a readonly map'", EACCES },
	{ "strncmp_writable", SOCK, {
		STRNCMP(BPF_LD_IMM64_RAW(3, BPF_PSEUDO_MAP_VALUE, MAP_ARRAY1)) }, REJECT, "R3 does not point to a readonly map'", EACCES },
	{ "strncmp_scalar", SOCK, { STRNCMP(BPF_MOV64_IMM(3, 0)) }, REJECT, "R3 type=scalar expected=map_value", EACCES },
	{ "strncmp_stack", SOCK, { STRNCMP(BPF_MOV64_REG(3, 10)) }, REJECT, "R3 type=fp expected=map_value", EACCES },
	{ "strncmp_hash_value", SOCK, {
		LOOKUP(MAP_HASH), BPF_JMP_IMM(BPF_JEQ, 0, 0, 7), BPF_MOV64_REG(3, 0),
		STRNCMP(BPF_MOV64_REG(3, 3)) }, REJECT, "R3 does not point to a readonly map'", EACCES },
};

TEST(verifier_const_str)
{
	vcase_run_table("const strings", str_cases, NCASES(str_cases));
}

/* bpf_strtol(buf, len, flags, res) / bpf_strtoul(): res points at 8 bytes the helper writes
 * (uninitialised stack is fine, and is initialised after the call), 8-byte aligned even where the
 * program's flags allow any alignment. */
#define STRTOX(FN, R4SETUP...)                                                                    \
	BPF_ST_MEM(BPF_DW, 10, -8, 0x34333231), BPF_MOV64_REG(1, 10), BPF_ALU64_IMM(BPF_ADD, 1, -8), \
		 BPF_MOV64_IMM(2, 8), BPF_MOV64_IMM(3, 0), R4SETUP,  \
		BPF_EMIT_CALL(FN)
#define STRTOL(R4SETUP...) STRTOX(BPF_FUNC_strtol, R4SETUP)
#define FP(R, OFF) BPF_MOV64_REG(R, 10), BPF_ALU64_IMM(BPF_ADD, R, OFF)

/* bpf_check_mtu(ctx, 0, R3SETUP, 0, 0): the mtu argument is 4 written, aligned bytes */
#define MTU_CALL(R3SETUP...)                                                                       \
	BPF_MOV64_IMM(2, 0), R3SETUP, BPF_MOV64_IMM(4, 0), BPF_MOV64_IMM(5, 0),                    \
		BPF_EMIT_CALL(BPF_FUNC_check_mtu)

static const struct vcase strtox_cases[] = {
	{ "strtol_res_uninit_stack", SOCK, {
		STRTOL(FP(4, -16)), BPF_LDX_MEM(BPF_DW, 0, 10, -16), EXIT }, ACCEPT },
	{ "strtoul_res_uninit_stack", SOCK, {
		STRTOX(BPF_FUNC_strtoul, FP(4, -16)), BPF_LDX_MEM(BPF_DW, 0, 10, -16), EXIT }, ACCEPT },
	{ "strtol_res_stack_misaligned", SOCK, { STRTOL(FP(4, -20)), EXIT }, REJECT, "misaligned stack access off 0+-20+0 size 8", EACCES },
	{ "strtol_res_stack_misaligned_any", SOCK, { STRTOL(FP(4, -20)), EXIT }, REJECT, "misaligned stack access off 0+-20+0 size 8", EACCES,
		.prog_flags = BPF_F_ANY_ALIGNMENT },
	{ "strtol_res_null", SOCK, { STRTOL(BPF_MOV64_IMM(4, 0)), EXIT }, REJECT, "R4 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_", EACCES },
	{ "strtol_res_ctx", SOCK, { BPF_MOV64_REG(6, 1), STRTOL(BPF_MOV64_REG(4, 6)), EXIT }, REJECT, "R4 type=ctx expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_", EACCES },
	{ "strtol_res_buf_same", SOCK, { STRTOL(FP(4, -8)), EXIT }, ACCEPT },
	{ "strtol_buf_uninit", SOCK, {
		STRTOL(FP(4, -16), BPF_ALU64_IMM(BPF_ADD, 1, -16)), EXIT }, ACCEPT },
	{ "strtol_len_zero", SOCK, { STRTOL(FP(4, -16), BPF_MOV64_IMM(2, 0)), EXIT }, REJECT, "R2 invalid zero-sized read: u64=[0,0]", EACCES },
	{ "strtol_len_unknown", SOCK, { BPF_MOV64_REG(6, 1),
		STRTOL(FP(4, -16), BPF_LDX_MEM(BPF_W, 2, 6, SKB(len))), EXIT }, REJECT, "R2 invalid zero-sized read: u64=[0,4294967295]", EACCES },
	{ "strtol_res_map_value", SOCK, {
		LOOKUP(MAP_ARRAY), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, EXIT, BPF_MOV64_REG(7, 0),
		STRTOL(BPF_MOV64_REG(4, 7), BPF_ALU64_IMM(BPF_ADD, 4, 40)), EXIT }, ACCEPT },
	{ "strtol_res_map_value_end", SOCK, {
		LOOKUP(MAP_ARRAY), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, EXIT, BPF_MOV64_REG(7, 0),
		STRTOL(BPF_MOV64_REG(4, 7), BPF_ALU64_IMM(BPF_ADD, 4, 44)), EXIT }, REJECT, "R4 min value is outside of the allowed memory range", EACCES },
	{ "strtol_res_map_misaligned", SOCK, {
		LOOKUP(MAP_ARRAY), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, EXIT, BPF_MOV64_REG(7, 0),
		STRTOL(BPF_MOV64_REG(4, 7), BPF_ALU64_IMM(BPF_ADD, 4, 4)), EXIT }, REJECT, "misaligned value access off 0+4+0 size 8", EACCES },
	{ "strtol_res_map_misaligned_any", SOCK, {
		LOOKUP(MAP_ARRAY), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, EXIT, BPF_MOV64_REG(7, 0),
		STRTOL(BPF_MOV64_REG(4, 7), BPF_ALU64_IMM(BPF_ADD, 4, 4)), EXIT }, REJECT, "misaligned value access off 0+4+0 size 8", EACCES,
		.prog_flags = BPF_F_ANY_ALIGNMENT },
	{ "strtol_res_map_nullable", SOCK, {
		LOOKUP(MAP_ARRAY), BPF_MOV64_REG(7, 0), STRTOL(BPF_MOV64_REG(4, 7)), EXIT }, REJECT, "R4 type=map_value_or_null expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_", EACCES },
	{ "strtol_res_rodata", SOCK, {
		STRTOL(BPF_LD_IMM64_RAW(4, BPF_PSEUDO_MAP_VALUE, MAP_RODATA)), EXIT }, REJECT, "write into map forbidden, value_size=16 off=0 size=8", EACCES },
	{ "strtol_buf_rodata", SOCK, {
		STRTOL(FP(4, -16), BPF_LD_IMM64_RAW(1, BPF_PSEUDO_MAP_VALUE, MAP_RODATA)),
		EXIT }, ACCEPT },
	{ "strtol_res_pkt", XDP, {
		BPF_LDX_MEM(BPF_W, 7, 1, XDPM(data)), BPF_LDX_MEM(BPF_W, 8, 1, XDPM(data_end)),
		BPF_MOV64_REG(9, 7), BPF_ALU64_IMM(BPF_ADD, 9, 16),
		BPF_JMP_REG(BPF_JLE, 9, 8, 2), R0_0, EXIT,
		STRTOL(BPF_MOV64_REG(4, 7)), EXIT }, REJECT, "helper access to the packet is not allowed", EACCES },
	{ "strtol_buf_pkt", XDP, {
		BPF_LDX_MEM(BPF_W, 7, 1, XDPM(data)), BPF_LDX_MEM(BPF_W, 8, 1, XDPM(data_end)),
		BPF_MOV64_REG(9, 7), BPF_ALU64_IMM(BPF_ADD, 9, 16),
		BPF_JMP_REG(BPF_JLE, 9, 8, 2), R0_0, EXIT,
		STRTOL(FP(4, -16), BPF_MOV64_REG(1, 7)), EXIT }, REJECT, "helper access to the packet is not allowed", EACCES },
	{ "check_mtu_uninit", CLS, { MTU_CALL(FP(3, -8)), EXIT }, ACCEPT },
	{ "check_mtu_misaligned", CLS, { MTU_CALL(FP(3, -6)), EXIT }, REJECT, "misaligned stack access off 0+-6+0 size 4", EACCES },
	{ "check_mtu_misaligned_any", CLS, { MTU_CALL(FP(3, -6)), EXIT }, REJECT, "misaligned stack access off 0+-6+0 size 4", EACCES,
		.prog_flags = BPF_F_ANY_ALIGNMENT },
	{ "check_mtu_rodata", CLS, {
		MTU_CALL(BPF_LD_IMM64_RAW(3, BPF_PSEUDO_MAP_VALUE, MAP_RODATA)), EXIT }, REJECT, "write into map forbidden, value_size=16 off=0 size=4", EACCES },
	{ "check_mtu_null", CLS, { MTU_CALL(BPF_MOV64_IMM(3, 0)), EXIT }, REJECT, "R3 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_", EACCES },
	{ "check_mtu_nongpl", CLS, { MTU_CALL(FP(3, -8)), EXIT }, REJECT, "cannot call GPL-restricted function from non-GPL compatible program", EINVAL, .license = "MIT" },
	{ "strtol_flags_unknown", SOCK, { BPF_MOV64_REG(6, 1),
		STRTOL(FP(4, -16), BPF_LDX_MEM(BPF_W, 3, 6, SKB(mark))), EXIT }, ACCEPT },
};

TEST(verifier_strtox)
{
	vcase_run_table("strtol", strtox_cases, NCASES(strtox_cases));
}

/* bpf_snprintf(str, size, fmt, data, data_len): fmt a constant string whose conversions the
 * verifier checks against data_len / 8 u64 arguments (at fp-32); str 32 bytes at fp-64. */
#define SNPRINTF_CALL(SLOT, NARGS, SETUP...)                                                       \
	BPF_MOV64_REG(6, 1), BPF_ST_MEM(BPF_DW, 10, -32, 65), BPF_ST_MEM(BPF_DW, 10, -24, -2),     \
		BPF_ST_MEM(BPF_DW, 10, -16, 0x7f000001), BPF_ST_MEM(BPF_DW, 10, -8, 66),           \
		FP(1, -64), BPF_MOV64_IMM(2, 32),                                                  \
		BPF_LD_IMM64_RAW(3, BPF_PSEUDO_MAP_VALUE, MAP_FMT), BPF_ALU64_IMM(BPF_ADD, 3, FMT(SLOT)), \
		FP(4, -32), BPF_MOV64_IMM(5, 8 * (NARGS)), SETUP, BPF_EMIT_CALL(BPF_FUNC_snprintf)
#define SNPRINTF(SLOT, NARGS, SETUP...) SNPRINTF_CALL(SLOT, NARGS, SETUP), EXIT
#define NOP BPF_MOV64_IMM(0, 0)
#define VPRINTK(SETUP...)                                                                          \
	BPF_ST_MEM(BPF_DW, 10, -32, 7), BPF_ST_MEM(BPF_DW, 10, -40, 0x0a6425), FP(1, -40),         \
		BPF_MOV64_IMM(2, 4), FP(3, -32), BPF_MOV64_IMM(4, 8), SETUP,                       \
		BPF_EMIT_CALL(BPF_FUNC_trace_vprintk), EXIT

static const struct vcase snprintf_cases[] = {
	{ "snprintf_ok", SOCK, { SNPRINTF(0, 2, NOP) }, ACCEPT },
	{ "snprintf_too_few_args", SOCK, { SNPRINTF(0, 1, NOP) }, REJECT, "Invalid format string", EINVAL },
	{ "snprintf_more_args", SOCK, { SNPRINTF(0, 3, NOP) }, ACCEPT },
	{ "snprintf_len_unaligned", SOCK, { SNPRINTF(0, 2, BPF_MOV64_IMM(5, 12)) }, REJECT, "15: (85) call bpf_snprintf#165", EINVAL },
	{ "snprintf_len_var", SOCK, {
		SNPRINTF(0, 2, BPF_LDX_MEM(BPF_W, 5, 6, SKB(len)), BPF_ALU64_IMM(BPF_AND, 5, 0x18)) }, REJECT, "Invalid format string", EINVAL },
	{ "snprintf_len_var_noargs", SOCK, {
		SNPRINTF(6, 0, BPF_LDX_MEM(BPF_W, 5, 6, SKB(len)), BPF_ALU64_IMM(BPF_AND, 5, 0x18)) }, ACCEPT },
	{ "snprintf_len_too_big", SOCK, { SNPRINTF(0, 2, BPF_MOV64_IMM(5, 40)) }, REJECT, "invalid read from stack R4 off=-32 size=40", EINVAL },
	{ "snprintf_bad_conv", SOCK, { SNPRINTF(3, 4, NOP) }, REJECT, "Invalid format string", EINVAL },
	{ "snprintf_5_of_4", SOCK, { SNPRINTF(4, 4, NOP) }, REJECT, "Invalid format string", EINVAL },
	{ "snprintf_control_char", SOCK, { SNPRINTF(5, 4, NOP) }, REJECT, "Invalid format string", EINVAL },
	{ "snprintf_no_args_null", SOCK, { SNPRINTF(6, 0, BPF_MOV64_IMM(4, 0)) }, ACCEPT },
	{ "snprintf_percent_char", SOCK, { SNPRINTF(7, 1, NOP) }, ACCEPT },
	{ "snprintf_width_flags", SOCK, { SNPRINTF(8, 3, NOP) }, ACCEPT },
	{ "snprintf_ptrs", SOCK, { SNPRINTF(9, 3, NOP) }, ACCEPT },
	{ "snprintf_s_alnum", SOCK, { SNPRINTF(10, 4, NOP) }, REJECT, "Invalid format string", EINVAL },
	{ "snprintf_longs", SOCK, { SNPRINTF(11, 3, NOP) }, ACCEPT },
	{ "snprintf_lll", SOCK, { SNPRINTF(12, 4, NOP) }, REJECT, "Invalid format string", EINVAL },
	{ "snprintf_pks_pus", SOCK, { SNPRINTF(13, 2, NOP) }, ACCEPT },
	{ "snprintf_ips", SOCK, { SNPRINTF(2, 2, NOP) }, ACCEPT },
	{ "snprintf_flags", SOCK, { SNPRINTF(14, 2, NOP) }, ACCEPT },
	{ "snprintf_mid_string", SOCK, { SNPRINTF(0, 1, BPF_ALU64_IMM(BPF_ADD, 3, 2)) }, ACCEPT },
	{ "snprintf_fmt_stack", SOCK, { SNPRINTF(0, 2, FP(3, -8)) }, REJECT, "R3 type=fp expected=map_value", EACCES },
	{ "snprintf_fmt_rodata_bytes", SOCK, {
		SNPRINTF(0, 2, BPF_LD_IMM64_RAW(3, BPF_PSEUDO_MAP_VALUE, MAP_RODATA)) }, REJECT, "string is not zero-terminated", EINVAL },
	{ "snprintf_str_null_0", SOCK, { SNPRINTF(0, 2, BPF_MOV64_IMM(1, 0), BPF_MOV64_IMM(2, 0)) }, ACCEPT },
	{ "snprintf_str_null_8", SOCK, { SNPRINTF(0, 2, BPF_MOV64_IMM(1, 0)) }, REJECT, "R1 type=scalar expected=fp", EACCES },
	{ "snprintf_str_rodata", SOCK, {
		SNPRINTF(0, 2, BPF_LD_IMM64_RAW(1, BPF_PSEUDO_MAP_VALUE, MAP_FMT), BPF_MOV64_IMM(2, 8)) }, REJECT, "write into map forbidden, value_size=256 off=0 size=8", EACCES },
	{ "snprintf_str_too_long", SOCK, { SNPRINTF(0, 2, BPF_MOV64_IMM(2, 80)) }, REJECT, "invalid write to stack R1 off=-64 size=80", EINVAL },
	{ "snprintf_data_uninit", SOCK, { SNPRINTF(0, 2, FP(4, -128)) }, ACCEPT },
	{ "snprintf_str_ctx", SOCK, { SNPRINTF(0, 2, BPF_MOV64_REG(1, 6)) }, REJECT, "R1 type=ctx expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_", EACCES },
	{ "snprintf_nongpl", SOCK, { SNPRINTF(0, 2, NOP) }, REJECT, "cannot call GPL-restricted function from non-GPL compatible program", EINVAL, .license = "MIT" },
	{ "snprintf_xdp", XDP, { SNPRINTF(0, 2, NOP) }, ACCEPT },
	{ "snprintf_log2", SOCK, { SNPRINTF_CALL(0, 2, NOP), BPF_LDX_MEM(BPF_DW, 0, 10, -64), EXIT },
		ACCEPT, .log_level = 2, .full_log = true },
	{ "trace_vprintk_ok", SOCK, { VPRINTK(NOP) }, ACCEPT },
	{ "trace_vprintk_len_unaligned", SOCK, { VPRINTK(BPF_MOV64_IMM(4, 12)) }, ACCEPT },
	{ "trace_vprintk_null", SOCK, { VPRINTK(BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0)) }, ACCEPT },
	{ "trace_vprintk_fmt_empty", SOCK, { VPRINTK(BPF_MOV64_IMM(2, 0)) }, REJECT, "R2 invalid zero-sized read: u64=[0,0]", EACCES },
	{ "trace_vprintk_nongpl", SOCK, { VPRINTK(NOP) }, REJECT, "cannot call GPL-restricted function from non-GPL compatible program", EINVAL, .license = "MIT" },
};

TEST(verifier_snprintf)
{
	vcase_run_table("snprintf", snprintf_cases, NCASES(snprintf_cases));
}
