/* native_progs.h — the C baselines of bench/bench_progs.c: the same logic as each BPF program,
 * compiled at -O2 in a separate translation unit (so the benchmark loop cannot fold it). */
#ifndef USERBPF_BENCH_NATIVE_PROGS_H
#define USERBPF_BENCH_NATIVE_PROGS_H

#include <stddef.h>
#include <stdint.h>

uint64_t native_ret0(const uint8_t *pkt, size_t len);
uint64_t native_parse_tcp(const uint8_t *pkt, size_t len);
uint64_t native_csum(const uint8_t *pkt, size_t len);
uint64_t native_loop(const uint8_t *pkt, size_t len);
/* The loop as bpf_loop() runs it: a callback called through a pointer, the state behind ctx. */
uint64_t native_loop_cb(const uint8_t *pkt, size_t len);
/* A 1024-entry hash table (chained, as the BPF hash map) of u32 -> u64, keys 0..1023 present. */
void native_hash_init(void);
/* The hashmap program's logic in C on a userbpf hash map (bench/native_map.c): the lookup and
 * the update the program's helpers make, called directly; bind gives it the map's fd. */
void native_hash_userbpf_bind(int map_fd);
uint64_t native_hash_userbpf(const uint8_t *pkt, size_t len);
uint64_t native_hash(const uint8_t *pkt, size_t len);
/* A task's pid and tgid and its parent's tgid, read through pointers (the task program). */
uint64_t native_task(const uint8_t *pkt, size_t len);
uint64_t native_task_fields(const uint8_t *pkt, size_t len);

#endif
