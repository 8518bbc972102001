/* Small helpers shared by every part of userbpf: kernel-style integer types, container_of, size
 * arithmetic, a spinlock and a sequence counter.  Nothing here allocates. */
#ifndef USERBPF_UTIL_H
#define USERBPF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* The kernel's ENOTSUPP: not in libc's errno.h, but the kernel returns it to user space (e.g.
 * LOOKUP_AND_DELETE on an array) and callers compare against 524. */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* On the declaration of library data read on hot paths: -fvisibility=hidden covers definitions,
 * not declarations, so without it -fPIC code would load the data's address from the GOT first. */
#define HIDDEN_DATA __attribute__((visibility("hidden")))

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define round_up(x, a) ((((x) + (a)-1) / (a)) * (a))

#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Smallest power of two >= x, for x in [1, 2^31]. */
/* Room for one more element in an array that doubles (from `first` elements): the array,
 * possibly moved, with *cap updated; NULL without memory (the old array is still valid). */
static inline void *grow_one(void *arr, u32 cnt, u32 *cap, size_t elem, u32 first)
{
	u32 n;
	void *p;

	if (cnt < *cap)
		return arr;
	n = *cap ? *cap * 2 : first;
	p = realloc(arr, (size_t)n * elem);
	if (p)
		*cap = n;
	return p;
}

static inline u32 roundup_pow_of_two(u32 x)
{
	return x <= 1 ? 1 : 1u << (32 - __builtin_clz(x - 1));
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* A test-and-test-and-set spinlock: critical sections here are a few list operations. */
typedef struct {
	int locked;
} spinlock_t;

static inline void spin_lock(spinlock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_relax();
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* Sequence counter: writers (serialised by a lock) make it odd while they change the data;
 * readers retry when it was odd or changed.  Readers write nothing, so they never contend. */
static inline u32 seq_write_begin(u32 *seq)
{
	u32 s = __atomic_load_n(seq, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(seq, s, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s;
}

static inline void seq_write_end(u32 *seq)
{
	__atomic_store_n(seq, __atomic_load_n(seq, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

static inline u32 seq_read_begin(const u32 *seq)
{
	u32 s;
	while ((s = __atomic_load_n(seq, __ATOMIC_ACQUIRE)) & 1)
		cpu_relax();
	return s;
}

static inline bool seq_read_retry(const u32 *seq, u32 start)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(seq, __ATOMIC_RELAXED) != start;
}

/* Accesses to shared map memory that may race with a writer.  Readers validate what they read
 * with a sequence counter (or accept tearing above 8 bytes, as the kernel's arrays do); doing the
 * accesses as relaxed atomics makes the race defined behaviour, and they compile to plain moves.
 * The shared side must be 8-byte aligned; the private side may be anywhere. */
/* Tails of 4, 2 and 1 bytes are done in one access each: keys are often 4 bytes. */
#define RACY_TAIL(n, i, STEP)                                                                    \
	do {                                                                                     \
		if ((n) - (i) >= 4) { STEP(u32, 4); }                                           \
		if ((n) - (i) >= 2) { STEP(u16, 2); }                                           \
		if ((n) - (i) >= 1) { STEP(u8, 1); }                                            \
	} while (0)

/* racy_load() and racy_store() move n bytes in one access: a racing reader sees all of the
 * old bytes or all of the new. */
static inline bool single_access(size_t n)
{
	return n == 8 || n == 4 || n == 2 || n == 1;
}

static inline void racy_load(void *dst, const void *shared, size_t n)
{
	size_t i = 0;

	if (n == 8) { /* the common value: one load */
		u64 w = __atomic_load_n((const u64 *)shared, __ATOMIC_RELAXED);

		memcpy(dst, &w, 8);
		return;
	}

#define LOAD_STEP(T, W)                                                                          \
	do {                                                                                     \
		T w = __atomic_load_n((const T *)((const u8 *)shared + i), __ATOMIC_RELAXED);    \
		memcpy((u8 *)dst + i, &w, W);                                                    \
		i += W;                                                                          \
	} while (0)
	while (n - i >= 8)
		LOAD_STEP(u64, 8);
	RACY_TAIL(n, i, LOAD_STEP);
#undef LOAD_STEP
}

static inline void racy_store(void *shared, const void *src, size_t n)
{
	size_t i = 0;

	if (n == 8) { /* the common value: one store */
		u64 w;

		memcpy(&w, src, 8);
		__atomic_store_n((u64 *)shared, w, __ATOMIC_RELAXED);
		return;
	}

#define STORE_STEP(T, W)                                                                         \
	do {                                                                                     \
		T w;                                                                             \
		memcpy(&w, (const u8 *)src + i, W);                                              \
		__atomic_store_n((T *)((u8 *)shared + i), w, __ATOMIC_RELAXED);                  \
		i += W;                                                                          \
	} while (0)
	while (n - i >= 8)
		STORE_STEP(u64, 8);
	RACY_TAIL(n, i, STORE_STEP);
#undef STORE_STEP
}

static inline bool racy_equal(const void *shared, const void *p, size_t n)
{
	size_t i = 0;

	if (n == 4) { /* the common key: one compare */
		u32 w;

		memcpy(&w, p, 4);
		return __atomic_load_n((const u32 *)shared, __ATOMIC_RELAXED) == w;
	}

#define EQ_STEP(T, W)                                                                            \
	do {                                                                                     \
		T w;                                                                             \
		memcpy(&w, (const u8 *)p + i, W);                                                \
		if (__atomic_load_n((const T *)((const u8 *)shared + i), __ATOMIC_RELAXED) != w) \
			return false;                                                            \
		i += W;                                                                          \
	} while (0)
	while (n - i >= 8)
		EQ_STEP(u64, 8);
	RACY_TAIL(n, i, EQ_STEP);
#undef EQ_STEP
	return true;
}

#endif
