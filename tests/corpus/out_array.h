/* The array "out" the loader tests read after a run (test_preload.c dumps it beside libbpf's),
 * and put(k, v) to fill it. */
#ifndef TESTS_CORPUS_OUT_ARRAY_H
#define TESTS_CORPUS_OUT_ARRAY_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} out SEC(".maps");

static void put(__u32 k, __u64 v)
{
	bpf_map_update_elem(&out, &k, &v, BPF_ANY);
}

#endif
