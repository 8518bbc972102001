/* The program types userbpf loads: BPF_PROG_TYPE(type, test_run), where test_run is the
 * BPF_PROG_TEST_RUN implementation for the type (NULL: the kernel has none, ENOTSUPP).
 * Expanded by load.c and test_run.c; any other type is refused at load as the kernel refuses a
 * type it was built without (EINVAL). */
BPF_PROG_TYPE(BPF_PROG_TYPE_SOCKET_FILTER, test_run_skb)
BPF_PROG_TYPE(BPF_PROG_TYPE_KPROBE, NULL)
BPF_PROG_TYPE(BPF_PROG_TYPE_SCHED_CLS, test_run_skb)
BPF_PROG_TYPE(BPF_PROG_TYPE_SCHED_ACT, test_run_skb)
BPF_PROG_TYPE(BPF_PROG_TYPE_TRACEPOINT, NULL)
BPF_PROG_TYPE(BPF_PROG_TYPE_XDP, test_run_xdp)
BPF_PROG_TYPE(BPF_PROG_TYPE_CGROUP_SKB, test_run_skb)
BPF_PROG_TYPE(BPF_PROG_TYPE_CGROUP_SOCK, NULL)
BPF_PROG_TYPE(BPF_PROG_TYPE_CGROUP_SOCK_ADDR, NULL)
BPF_PROG_TYPE(BPF_PROG_TYPE_CGROUP_DEVICE, NULL)
BPF_PROG_TYPE(BPF_PROG_TYPE_CGROUP_SOCKOPT, NULL)
BPF_PROG_TYPE(BPF_PROG_TYPE_LWT_IN, test_run_skb)
BPF_PROG_TYPE(BPF_PROG_TYPE_LWT_OUT, test_run_skb)
BPF_PROG_TYPE(BPF_PROG_TYPE_LWT_XMIT, test_run_skb)
BPF_PROG_TYPE(BPF_PROG_TYPE_RAW_TRACEPOINT, test_run_raw_tp)
BPF_PROG_TYPE(BPF_PROG_TYPE_FLOW_DISSECTOR, test_run_flow_dissector)
