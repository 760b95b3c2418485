// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rc_soak: moves a given number of bytes per RC opcode family over one
// rdma_cm connection and verifies every byte (selftests/vm/twovm-netem.sh
// runs it under loss, reordering and duplication).
//
//   rc_soak --server --dev DEV [--port P] [--seed S]
//   rc_soak --client HOST --dev DEV [--port P] [--seed S] [--bytes N]
//           [--family send|write|read|atomic|all] [--chunk BYTES] [--stall SEC]
//           [--ack-timeout T] [--retry N]
//
// Every SEND, WRITE and READ moves --chunk bytes (64 KiB at most, the
// default; smaller ones keep go-back-N retransmission short on rxe).
// Families: SEND/RECV (the server checks each payload), RDMA WRITE with a
// WRITE_WITH_IMM last in each window of 16 chunks on RoCE (the server checks the
// window after a SEND that says "done"), RDMA READ (the client checks),
// fetch-add and compare-swap on RoCE, --bytes / 2048 of them (the client
// checks each returned value, the server the final ones). One line per family on each side,
//   rc_soak: DEV FAMILY bytes B ops N corrupt C time T s
// then the retry-related counters' deltas. Exit 0 only if nothing was
// corrupt; 1 on corruption, a WC error or a stuck QP (no completion for
// --stall seconds, 60 x RDMA_KMOD_TIME_FACTOR by default); 2 on bad usage.
// --retry: the RC retry count (6 by default; rxe retries for ever on 7).
#include <getopt.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "soak_conn.h"
#include "soak_counters.h"
#include "soak_roles.h"

using namespace soak;

namespace {

const Conn *the_conn;
Counters counters_before;

void print_counters_on_fail()
{
	print_counter_deltas(the_conn->dev, counters_before,
			     read_counters(the_conn->dev, the_conn->iwarp));
}

[[noreturn]] void usage()
{
	std::fprintf(stderr,
		     "usage: rc_soak --server|--client HOST --dev DEV [--port P] [--seed S]\n"
		     "               [--bytes N] [--family send|write|read|atomic|all]\n"
		     "               [--chunk BYTES] [--stall SEC] [--ack-timeout T] [--retry 0-7]\n");
	std::exit(2);
}

bool parse_families(const char *s, Plan &plan)
{
	if (!std::strcmp(s, "all")) {
		plan.families = { FAM_SEND, FAM_WRITE, FAM_READ, FAM_ATOMIC };
		return true;
	}
	for (uint32_t f = FAM_SEND; f <= FAM_ATOMIC; f++)
		if (!std::strcmp(s, family_name(f))) {
			plan.families = { f };
			return true;
		}
	return false;
}

} // namespace

int main(int argc, char **argv)
{
	static const option opts[] = {
		{ "server", no_argument, nullptr, 's' },
		{ "client", required_argument, nullptr, 'c' },
		{ "dev", required_argument, nullptr, 'd' },
		{ "port", required_argument, nullptr, 'p' },
		{ "seed", required_argument, nullptr, 'S' },
		{ "bytes", required_argument, nullptr, 'b' },
		{ "family", required_argument, nullptr, 'f' },
		{ "stall", required_argument, nullptr, 't' },
		{ "ack-timeout", required_argument, nullptr, 'a' },
		{ "chunk", required_argument, nullptr, 'k' },
		{ "retry", required_argument, nullptr, 'r' },
		{ nullptr, 0, nullptr, 0 },
	};
	const char *tf = std::getenv("RDMA_KMOD_TIME_FACTOR");
	bool server = false;
	const char *host = nullptr;
	unsigned port = 18515;
	Plan plan;
	Conn c;
	int o;

	c.stall_s = 60 * (tf && std::atoi(tf) > 0 ? std::atoi(tf) : 1);
	parse_families("all", plan);
	while ((o = getopt_long(argc, argv, "", opts, nullptr)) != -1) {
		switch (o) {
		case 's': server = true; break;
		case 'c': host = optarg; break;
		case 'd': c.dev = optarg; break;
		case 'p': port = unsigned(std::strtoul(optarg, nullptr, 0)); break;
		case 'S': plan.seed = std::strtoull(optarg, nullptr, 0); break;
		case 'b': plan.bytes = std::strtoull(optarg, nullptr, 0); break;
		case 'f': if (!parse_families(optarg, plan)) usage(); break;
		case 't': c.stall_s = std::atoi(optarg); break;
		case 'a': c.ack_timeout = std::atoi(optarg); break;
		case 'r': c.retry_count = std::atoi(optarg); break;
		case 'k': plan.chunk = std::strtoul(optarg, nullptr, 0); break;
		default: usage();
		}
	}
	if (server == !!host || c.dev.empty() || !port || port > 65535 || c.stall_s <= 0 ||
	    c.retry_count < 0 || c.retry_count > 7 ||
	    !plan.bytes || !plan.chunk || plan.chunk > kChunk || optind != argc)
		usage();
	setvbuf(stdout, nullptr, _IOLBF, 0);

	uint64_t corrupt;
	if (server)
		c.serve(uint16_t(port));
	else
		c.connect(host, uint16_t(port));
	const Counters before = read_counters(c.dev, c.iwarp);
	the_conn = &c;
	counters_before = before;
	fail_hook = print_counters_on_fail;
	std::printf("rc_soak: %s connected (%s, atomics %s)\n", c.dev.c_str(),
		    c.iwarp ? "iWARP" : "RoCE", c.atomics ? "yes" : "no");
	if (server) {
		corrupt = run_server(c, plan.seed);
		c.wait_disconnected();
	} else {
		corrupt = run_client(c, plan);
		c.disconnect_and_wait();
	}
	print_counter_deltas(c.dev, before, read_counters(c.dev, c.iwarp));
	c.destroy();
	std::printf("rc_soak: %s %s, %" PRIu64 " corrupt bytes\n", c.dev.c_str(),
		    corrupt ? "FAILED" : "passed", corrupt);
	return corrupt ? 1 : 0;
}
