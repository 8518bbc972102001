/* Packet sources for `prog run`: pcap and pcapng files and live capture through libpcap, and a
 * raw data file holding one packet.
 *
 * Every source hands out Ethernet frames one at a time (pktsrc_next); a file source refuses any
 * other link type up front, since the programs (XDP, socket filters on a packet socket) expect
 * an Ethernet header.  A live capture polls with a short timeout so that pktsrc_stop() (from a
 * SIGINT handler) ends it between packets.  Built without libpcap (HAVE_LIBPCAP undefined, e.g.
 * an i386 build without libpcap:i386), only --data is available and the others say so.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBPCAP
#include <pcap/pcap.h>
#endif

#include "pktsrc.h"

#define DATA_MAX (1u << 20) /* a --data packet's size limit */

struct pktsrc {
#ifdef HAVE_LIBPCAP
	pcap_t *pcap;
#endif
	bool live;
	unsigned long count; /* live: stop after this many (0: no limit) */
	unsigned long seen;
	uint8_t *data; /* --data: the one packet */
	uint32_t data_len;
	bool data_done;
};

static volatile sig_atomic_t stop_requested;

void pktsrc_stop(void)
{
	stop_requested = 1;
}

bool pktsrc_have_pcap(void)
{
#ifdef HAVE_LIBPCAP
	return true;
#else
	return false;
#endif
}

int pktsrc_open_data(struct pktsrc **sp, const char *path)
{
	struct pktsrc *s;
	FILE *f;
	size_t n;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->data = malloc(DATA_MAX + 1);
	f = fopen(path, "rb");
	if (!s->data || !f) {
		cli_err("%s: %s", path, strerror(errno));
		if (f)
			goto err_close;
		goto err_free;
	}
	n = fread(s->data, 1, DATA_MAX + 1, f);
	if (ferror(f) || n > DATA_MAX) {
		cli_err("%s: %s", path, ferror(f) ? strerror(errno) : "larger than 1 MiB");
		goto err_close;
	}
	fclose(f);
	s->data_len = (uint32_t)n;
	*sp = s;
	return 0;

err_close:
	fclose(f);
err_free:
	free(s->data);
	free(s);
	return -1;
}

#ifdef HAVE_LIBPCAP
static int check_linktype(pcap_t *p, const char *what)
{
	int dlt = pcap_datalink(p);

	if (dlt == DLT_EN10MB)
		return 0;
	cli_err("%s: link type %s, not Ethernet", what,
		pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "unknown");
	return -1;
}

int pktsrc_open_pcap(struct pktsrc **sp, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pktsrc *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	/* pcap_open_offline reads pcapng too (libpcap >= 1.1) */
	s->pcap = pcap_open_offline(path, errbuf);
	if (!s->pcap) {
		cli_err("%s", errbuf);
		free(s);
		return -1;
	}
	if (check_linktype(s->pcap, path)) {
		pcap_close(s->pcap);
		free(s);
		return -1;
	}
	*sp = s;
	return 0;
}

int pktsrc_open_iface(struct pktsrc **sp, const char *iface, unsigned long count)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pktsrc *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	errbuf[0] = '\0';
	/* 100 ms read timeout: the loop checks for ^C at least that often */
	s->pcap = pcap_open_live(iface, 65535, 0, 100, errbuf);
	if (!s->pcap) {
		cli_err("%s", errbuf);
		free(s);
		return -1;
	}
	if (check_linktype(s->pcap, iface)) {
		pcap_close(s->pcap);
		free(s);
		return -1;
	}
	s->live = true;
	s->count = count;
	stop_requested = 0;
	*sp = s;
	return 0;
}
#else
int pktsrc_open_pcap(struct pktsrc **sp, const char *path)
{
	cli_err("%s: built without libpcap: use --data", path);
	return -1;
}

int pktsrc_open_iface(struct pktsrc **sp, const char *iface, unsigned long count)
{
	cli_err("%s: built without libpcap: no live capture", iface);
	return -1;
}
#endif

int pktsrc_next(struct pktsrc *s, struct pkt *p)
{
	if (s->data) {
		if (s->data_done)
			return 0;
		s->data_done = true;
		p->data = s->data;
		p->len = p->wire_len = s->data_len;
		return 1;
	}
#ifdef HAVE_LIBPCAP
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *d;
		int rc;

		if (s->live && (stop_requested || (s->count && s->seen >= s->count)))
			return 0;
		rc = pcap_next_ex(s->pcap, &h, &d);
		if (rc == 0)
			continue; /* live timeout */
		if (rc == PCAP_ERROR_BREAK)
			return 0;
		if (rc < 0) {
			cli_err("%s", pcap_geterr(s->pcap));
			return -1;
		}
		s->seen++;
		p->data = d;
		p->len = h->caplen;
		p->wire_len = h->len;
		return 1;
	}
#else
	return 0;
#endif
}

void pktsrc_close(struct pktsrc *s)
{
	if (!s)
		return;
#ifdef HAVE_LIBPCAP
	if (s->pcap)
		pcap_close(s->pcap);
#endif
	free(s->data);
	free(s);
}
