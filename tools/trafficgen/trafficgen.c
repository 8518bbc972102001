/* trafficgen: writes a deterministic capture of mixed Ethernet traffic, so that demos and tests
 * need nothing downloaded.
 *
 * Usage: trafficgen [-n COUNT] [-s SEED] [-f pcap|pcapng] -o FILE
 *
 * Packets are drawn from a xorshift64 generator seeded with SEED (same seed, same bytes, on any
 * host): IPv4 TCP (45%), UDP (25%), ICMP echo (10%), GRE (3%), IPv6 TCP/UDP/ICMPv6 (12%) and ARP
 * (5%), with sizes from minimum frames to 1514 bytes and a mix of well-known and random ports.
 * IPv4 header checksums are correct; L4 checksums are left zero.  Frames shorter than 60 bytes
 * are padded to 60 as on the wire.  Timestamps start at 2023-11-14 22:13:20 UTC and advance
 * 1..1000 us per packet.  pcap output goes through libpcap's dump API; pcapng (which libpcap
 * cannot write) is written here: one section header, one Ethernet interface, enhanced packet
 * blocks.  A summary line goes to stdout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#define FRAME_MAX 1514
#define TS_START 1700000000u

enum kind { K_TCP, K_UDP, K_ICMP, K_GRE, K_IPV6, K_ARP, K_NKINDS };
static const char *const kind_names[K_NKINDS] = {"tcp", "udp", "icmp", "gre", "ipv6", "arp"};

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 11) % n);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t ip_csum(const uint8_t *p, unsigned int len)
{
	uint32_t s = 0;

	for (unsigned int i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static unsigned int eth(uint8_t *f, uint16_t proto)
{
	static const uint8_t dst[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
	static const uint8_t src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, proto);
	return 14;
}

/* An IPv4 header for total length tot (header included); returns its length. */
static unsigned int ipv4(uint8_t *p, uint8_t proto, unsigned int tot, uint16_t id)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, (uint16_t)tot);
	put16(p + 4, id);
	p[8] = 64;
	p[9] = proto;
	p[12] = 10, p[13] = 0, p[14] = (uint8_t)rnd(4), p[15] = (uint8_t)(1 + rnd(250));
	p[16] = 10, p[17] = 1, p[18] = 0, p[19] = (uint8_t)(1 + rnd(20));
	put16(p + 10, ip_csum(p, 20));
	return 20;
}

static uint16_t pick_port(const uint16_t *common, unsigned int n)
{
	return rnd(4) ? common[rnd(n)] : (uint16_t)(1024 + rnd(64000));
}

/* Builds one frame of kind k into f; returns its length. */
static unsigned int frame(uint8_t *f, enum kind k, uint16_t id)
{
	static const uint16_t tcp_ports[] = {80, 443, 22, 25, 8080, 3306};
	static const uint16_t udp_ports[] = {53, 123, 443, 4789, 5353};
	unsigned int l = eth(f, k == K_IPV6 ? 0x86dd : k == K_ARP ? 0x0806 : 0x0800), pay;
	uint8_t *p = f + l;

	switch (k) {
	case K_TCP:
		/* ACKs, small requests and full-size segments */
		pay = rnd(3) == 0 ? 0 : rnd(2) ? rnd(200) : 1460 - rnd(100);
		l += ipv4(p, 6, 20 + 20 + pay, id);
		put16(f + l, (uint16_t)(32768 + rnd(28000)));
		put16(f + l + 2, pick_port(tcp_ports, 6));
		memset(f + l + 4, 0, 16);
		f[l + 12] = 0x50;
		f[l + 13] = pay ? 0x18 : 0x10;
		l += 20;
		break;
	case K_UDP:
		pay = 16 + rnd(1200);
		l += ipv4(p, 17, 20 + 8 + pay, id);
		put16(f + l, (uint16_t)(32768 + rnd(28000)));
		put16(f + l + 2, pick_port(udp_ports, 5));
		put16(f + l + 4, (uint16_t)(8 + pay));
		put16(f + l + 6, 0);
		l += 8;
		break;
	case K_ICMP:
		pay = 56 + (rnd(8) == 0 ? rnd(1000) : 0);
		l += ipv4(p, 1, 20 + 8 + pay, id);
		memset(f + l, 0, 8);
		f[l] = rnd(2) ? 8 : 0; /* echo request / reply */
		put16(f + l + 4, (uint16_t)rnd(65536));
		l += 8;
		break;
	case K_GRE:
		pay = 40 + rnd(400);
		l += ipv4(p, 47, 20 + 4 + pay, id);
		put16(f + l, 0);
		put16(f + l + 2, 0x0800);
		l += 4;
		break;
	case K_IPV6: {
		static const uint8_t nh[3] = {6, 17, 58};
		uint8_t next = nh[rnd(3)];
		unsigned int l4 = next == 6 ? 20 : 8;

		pay = rnd(600);
		memset(p, 0, 40);
		p[0] = 0x60;
		put16(p + 4, (uint16_t)(l4 + pay));
		p[6] = next;
		p[7] = 64;
		p[8] = 0xfd, p[23] = (uint8_t)(1 + rnd(200));  /* fd00::x */
		p[24] = 0xfd, p[39] = (uint8_t)(1 + rnd(200)); /* fd00::y */
		l += 40;
		memset(f + l, 0, l4);
		if (next == 58) {
			f[l] = 128; /* echo request */
		} else {
			put16(f + l, (uint16_t)(32768 + rnd(28000)));
			put16(f + l + 2,
			      next == 6 ? pick_port(tcp_ports, 6) : pick_port(udp_ports, 5));
		}
		l += l4;
		break;
	}
	case K_ARP:
		memset(p, 0, 28);
		put16(p, 1);
		put16(p + 2, 0x0800);
		p[4] = 6, p[5] = 4;
		put16(p + 6, rnd(2) ? 1 : 2);
		memcpy(p + 8, f + 6, 6);
		p[14] = 10, p[17] = (uint8_t)(1 + rnd(250));
		p[24] = 10, p[27] = (uint8_t)(1 + rnd(250));
		return l + 28 < 60 ? (memset(f + l + 28, 0, 60 - l - 28), 60) : l + 28;
	default:
		return 0;
	}
	/* payload: a repeating pattern from the packet id */
	for (unsigned int i = 0; i < pay && l < FRAME_MAX; i++)
		f[l++] = (uint8_t)(id + i);
	if (l < 60) {
		memset(f + l, 0, 60 - l);
		l = 60;
	}
	return l;
}

static enum kind pick_kind(void)
{
	uint32_t r = rnd(100);

	if (r < 45)
		return K_TCP;
	if (r < 70)
		return K_UDP;
	if (r < 80)
		return K_ICMP;
	if (r < 83)
		return K_GRE;
	if (r < 95)
		return K_IPV6;
	return K_ARP;
}

/* pcapng blocks, in host byte order (the section header's magic tells readers which). */
static int ng_block(FILE *f, uint32_t type, const void *body, uint32_t len)
{
	static const uint8_t pad[4];
	uint32_t total = 12 + ((len + 3) & ~3u);

	if (fwrite(&type, 4, 1, f) != 1 || fwrite(&total, 4, 1, f) != 1 ||
	    fwrite(body, 1, len, f) != len ||
	    fwrite(pad, 1, (4 - len % 4) % 4, f) != (4 - len % 4) % 4 ||
	    fwrite(&total, 4, 1, f) != 1)
		return -1;
	return 0;
}

static int ng_header(FILE *f)
{
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int64_t section_len;
	} __attribute__((packed)) shb = {0x1A2B3C4D, 1, 0, -1};
	struct {
		uint16_t linktype, reserved;
		uint32_t snaplen;
	} idb = {1 /* LINKTYPE_ETHERNET */, 0, 65535};

	if (ng_block(f, 0x0A0D0D0A, &shb, sizeof(shb)))
		return -1;
	return ng_block(f, 1, &idb, sizeof(idb));
}

static int ng_packet(FILE *f, uint64_t ts_us, const uint8_t *data, uint32_t len)
{
	uint8_t body[20 + FRAME_MAX];
	uint32_t h[5] = {0, (uint32_t)(ts_us >> 32), (uint32_t)ts_us, len, len};

	memcpy(body, h, 20);
	memcpy(body + 20, data, len);
	return ng_block(f, 6, body, 20 + len);
}

int main(int argc, char **argv)
{
	unsigned long count = 2000, kinds[K_NKINDS] = {0};
	unsigned long long seed = 1, bytes = 0;
	const char *out = NULL, *fmt = "pcap";
	pcap_dumper_t *dumper = NULL;
	pcap_t *dead = NULL;
	FILE *ng = NULL;
	uint64_t ts_us = (uint64_t)TS_START * 1000000;
	uint8_t f[FRAME_MAX + 64];
	int opt;

	while ((opt = getopt(argc, argv, "n:s:f:o:h")) != -1) {
		switch (opt) {
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			fmt = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"Usage: trafficgen [-n COUNT] [-s SEED] [-f pcap|pcapng] -o FILE\n"
				"Writes COUNT (2000) packets of deterministic mixed traffic.\n");
			return opt == 'h' ? 0 : 1;
		}
	}
	if (!out || optind != argc || (strcmp(fmt, "pcap") && strcmp(fmt, "pcapng"))) {
		fprintf(stderr,
			"Usage: trafficgen [-n COUNT] [-s SEED] [-f pcap|pcapng] -o FILE\n");
		return 1;
	}
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	if (!strcmp(fmt, "pcap")) {
		dead = pcap_open_dead(DLT_EN10MB, 65535);
		dumper = dead ? pcap_dump_open(dead, out) : NULL;
		if (!dumper) {
			fprintf(stderr, "trafficgen: %s: %s\n", out,
				dead ? pcap_geterr(dead) : "pcap_open_dead failed");
			if (dead)
				pcap_close(dead);
			return 1;
		}
	} else {
		ng = fopen(out, "wb");
		if (!ng || ng_header(ng)) {
			fprintf(stderr, "trafficgen: %s: %s\n", out, strerror(errno));
			if (ng)
				fclose(ng);
			return 1;
		}
	}
	for (unsigned long i = 0; i < count; i++) {
		enum kind k = pick_kind();
		unsigned int len = frame(f, k, (uint16_t)i);

		ts_us += 1 + rnd(1000);
		kinds[k]++;
		bytes += len;
		if (dumper) {
			struct pcap_pkthdr h = {.caplen = len, .len = len};

			h.ts.tv_sec = (time_t)(ts_us / 1000000);
			h.ts.tv_usec = (suseconds_t)(ts_us % 1000000);
			pcap_dump((u_char *)dumper, &h, f);
		} else if (ng_packet(ng, ts_us, f, len)) {
			fprintf(stderr, "trafficgen: %s: %s\n", out, strerror(errno));
			fclose(ng);
			return 1;
		}
	}
	if (dumper) {
		int bad = pcap_dump_flush(dumper);

		pcap_dump_close(dumper);
		pcap_close(dead);
		if (bad) {
			fprintf(stderr, "trafficgen: %s: write failed\n", out);
			return 1;
		}
	} else if (fclose(ng)) {
		fprintf(stderr, "trafficgen: %s: %s\n", out, strerror(errno));
		return 1;
	}
	printf("trafficgen: %lu packets, %llu bytes to %s:", count, bytes, out);
	for (int k = 0; k < K_NKINDS; k++)
		printf(" %s %lu", kind_names[k], kinds[k]);
	putchar('\n');
	return 0;
}
