/* Corpus programs that keep state in maps a test cannot read from user space, run: loaded by
 * the ELF loader on both sides and run through BPF_PROG_TEST_RUN, their verdicts must agree.
 * (The verifier's side of the corpus is test_loader_corpus.c.)  Skipped where the kernel's bpf()
 * is unavailable.
 */
#include "kbpf.h"
#include "test.h"
#include "userbpf/loader.h"

/* cgroup_skb_storage_count: its cgroup storage's spin lock and per-CPU counter at run time;
 * small packets pass, large ones are dropped. */
TEST(loader_runs_cgroup_storage)
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	int prog[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		struct userbpf_object_opts opts = { .sz = sizeof(opts), .bpf = diff_sides[s]->bpf };

		REQUIRE(userbpf_object_open_file(LOADER_OBJ_DIR
						 "/tests/corpus/cgroup_skb_storage_count.bpf.o",
						 &opts, &obj[s]) == 0);
		REQUIRE(userbpf_object_load(obj[s]) == 0);
		prog[s] = userbpf_program_fd(userbpf_object_program(obj[s], 0));
		REQUIRE(prog[s] >= 0);
	}
	for (uint32_t len = 64; len <= 1514; len += 290) {
		static uint8_t pkt[1514] = { [12] = 0x08, [14] = 0x45 };
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run(s, prog[s], pkt, len, &ret[s]);
		if (!AGREE("corpus program run", r) || r[K].rc)
			break;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ(ret[U], len - 14 > 1000 ? 0u : 1u);
	}
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}
