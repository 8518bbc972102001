/* native_progs.c — C versions of the benchmark programs of bench_progs.c, one function each,
 * written as a C programmer would (not transliterated instruction by instruction), reading the
 * same packet bytes and computing the same result as the BPF program.
 *
 * native_loop() takes its iteration count from a global the compiler cannot see through, as the
 * BPF program's loop is not folded by the interpreter either.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "native_progs.h"

volatile uint32_t native_loop_iters = 100;

uint64_t native_ret0(const uint8_t *pkt, size_t len)
{
	return 0;
}

/* Ethernet / IPv4 / TCP: XDP_DROP (1) for TCP port 80, else XDP_PASS (2). */
uint64_t native_parse_tcp(const uint8_t *pkt, size_t len)
{
	uint16_t proto, dport;
	size_t ihl;

	if (len < 34)
		return 2;
	memcpy(&proto, pkt + 12, 2);
	if (proto != htons(0x0800) || (pkt[14] >> 4) != 4)
		return 2;
	ihl = (size_t)(pkt[14] & 0xf) * 4;
	if (ihl < 20 || pkt[23] != 6 || len < 14 + ihl + 20)
		return 2;
	memcpy(&dport, pkt + 14 + ihl + 2, 2);
	return dport == htons(80) ? 1 : 2;
}

/* Ones' complement sum of the 16-bit words (little-endian loads, as the BPF program's), folded
 * and inverted. */
uint64_t native_csum(const uint8_t *pkt, size_t len)
{
	uint64_t sum = 0;
	uint16_t w;

	for (size_t i = 0; i + 2 <= len && i < 1500; i += 2) {
		memcpy(&w, pkt + i, 2);
		sum += w;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum ^ 0xffff;
}

uint64_t native_loop(const uint8_t *pkt, size_t len)
{
	uint32_t n = native_loop_iters;
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 31 + i;
		x ^= x >> 7;
	}
	return x;
}

/* bpf_loop(100, round, &x, 0) in C: the helper's loop calls the callback through a pointer
 * (which the compiler cannot inline: it is read from a volatile), x lives behind ctx. */
static long loop_round(uint64_t i, void *ctx)
{
	uint64_t *x = ctx;

	*x = *x * 31 + i;
	*x ^= *x >> 7;
	return 0;
}

static long (*volatile native_loop_round)(uint64_t i, void *ctx) = loop_round;

uint64_t native_loop_cb(const uint8_t *pkt, size_t len)
{
	long (*round)(uint64_t, void *) = native_loop_round;
	uint32_t n = native_loop_iters;
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++)
		if (round(i, &x))
			break;
	return x;
}

struct native_elem {
	struct native_elem *next;
	uint32_t key;
	uint64_t value;
};

#define NATIVE_BUCKETS 1024
static struct native_elem *native_buckets[NATIVE_BUCKETS];
static struct native_elem native_elems[NATIVE_BUCKETS];

static uint32_t native_hash_key(uint32_t k)
{
	k ^= k >> 16;
	k *= 0x45d9f3bu;
	k ^= k >> 16;
	return k & (NATIVE_BUCKETS - 1);
}

void native_hash_init(void)
{
	memset(native_buckets, 0, sizeof(native_buckets));
	for (uint32_t k = 0; k < NATIVE_BUCKETS; k++) {
		struct native_elem *e = &native_elems[k];
		uint32_t b = native_hash_key(k);

		e->key = k;
		e->value = 0;
		e->next = native_buckets[b];
		native_buckets[b] = e;
	}
}

static struct native_elem *native_lookup(uint32_t key)
{
	struct native_elem *e = native_buckets[native_hash_key(key)];

	while (e && e->key != key)
		e = e->next;
	return e;
}

/* key = first 4 packet bytes & 1023; value = lookup(key) + 1 (1 if absent); update(key). */
uint64_t native_hash(const uint8_t *pkt, size_t len)
{
	struct native_elem *e;
	uint32_t key;
	uint64_t v;

	if (len < 4)
		return 2;
	memcpy(&key, pkt, 4);
	key &= 1023;
	e = native_lookup(key);
	v = e ? e->value + 1 : 1;
	/* The update looks the key up again, as the helper does; but gcc -O2 sees that nothing
	 * changed in between and merges both lookups into one, and the update into an add to the
	 * element's value in place: one load-add-store per run, where the program does two
	 * lookups and copies the value to its stack and back. */
	e = native_lookup(key);
	if (e)
		e->value = v;
	return 2;
}

/* The task program's logic: two fields of a task and one of its parent, through the pointer
 * (task-fields: four fields of the task). */
struct native_task {
	int prio, static_prio;
	char gap[1024]; /* (the fields are about this far apart in the kernel's task_struct) */
	int pid, tgid;
	struct native_task *real_parent;
};
static struct native_task native_parent = { .pid = 1, .tgid = 1, .real_parent = &native_parent };
static struct native_task native_self = { .prio = 120, .static_prio = 120, .pid = 100,
					  .tgid = 100, .real_parent = &native_parent };
struct native_task *volatile native_current = &native_self;

uint64_t native_task(const uint8_t *pkt, size_t len)
{
	const struct native_task *t = native_current;
	int sum = t->pid + t->tgid + t->real_parent->tgid;

	__asm__ volatile("" : : "r"(sum)); /* (read, as the program reads them) */
	return 2;
}

uint64_t native_task_fields(const uint8_t *pkt, size_t len)
{
	const struct native_task *t = native_current;
	int a = t->pid + t->tgid, b = t->prio + t->static_prio;

	__asm__ volatile("" : : "r"(a), "r"(b)); /* (read, as the program reads them) */
	return 2;
}
