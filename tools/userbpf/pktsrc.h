/* Packet sources of the CLI (pktsrc.c), in a header of their own: pktsrc.c includes libpcap's
 * <pcap/pcap.h>, whose classic-BPF struct bpf_insn clashes with <linux/bpf.h>, so this header and
 * pktsrc.c stay clear of the userbpf headers.
 */
#ifndef USERBPF_CLI_PKTSRC_H
#define USERBPF_CLI_PKTSRC_H

#include <stdbool.h>
#include <stdint.h>

/* pktsrc.c: packets from a pcap/pcapng file, a raw data file (one packet), or a live interface. */
struct pktsrc;
struct pkt {
	const uint8_t *data;
	uint32_t len;	   /* captured bytes */
	uint32_t wire_len; /* length on the wire */
};
int pktsrc_open_pcap(struct pktsrc **sp, const char *path);
int pktsrc_open_data(struct pktsrc **sp, const char *path);
int pktsrc_open_iface(struct pktsrc **sp, const char *iface, unsigned long count);
/* 1 and *p, 0 at the end, -1 on error (printed).  p->data is valid until the next call. */
int pktsrc_next(struct pktsrc *s, struct pkt *p);
void pktsrc_close(struct pktsrc *s);
/* Asks a live capture to stop (async-signal-safe). */
void pktsrc_stop(void);
bool pktsrc_have_pcap(void);

/* main.c: "userbpf: " + message on stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
