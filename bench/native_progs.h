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
/* A 1024-entry hash table (chained, as the BPF hash map) of u32 -> u64, keys 0..1023 present. */
void native_hash_init(void);
uint64_t native_hash(const uint8_t *pkt, size_t len);

#endif
