// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rdma_fuzz_sys: fuzzes the system-call surface of the RDMA stack (uverbs
// write and ioctl, rdma_ucm, umad, NLDEV netlink, configfs and sysfs) from
// several worker processes at once, some without privileges. The parent
// SIGKILLs random workers mid-stream and respawns them, watches for workers
// that stop making progress, and prints one summary line:
//   fuzz_sys: seed S calls N workers W errnos <top counts> kills K
// Worker w's respawn r draws from derive_seed(seed, w, r): a run is
// replayed from its seed, calls and workers.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_verbs.h>

#include "fuzz.h"

using namespace fz;

namespace {

void usage()
{
	fprintf(stderr,
		"usage: rdma_fuzz_sys --seed S --calls N [--workers W] [--journal DIR]\n"
		"                     [--devices rxe0,siw0] [--link-netdevs A,B] [--max-seconds T]\n");
	exit(2);
}

std::vector<std::string> split(const std::string &s)
{
	std::vector<std::string> out;
	size_t at = 0;
	while (at <= s.size()) {
		size_t c = s.find(',', at);
		if (c == std::string::npos)
			c = s.size();
		if (c > at)
			out.push_back(s.substr(at, c - at));
		at = c + 1;
	}
	return out;
}

std::string read_line(const std::string &path)
{
	char buf[256] = "";
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "";
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return "";
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

// uverbsN and umadN of the devices under test, from sysfs.
void discover(Config &cfg, const std::vector<std::string> &want)
{
	auto wanted = [&](const std::string &n) {
		return want.empty() ? n.rfind("fz", 0) != 0 : std::find(want.begin(), want.end(), n) != want.end();
	};
	if (DIR *d = opendir("/sys/class/infiniband_verbs")) {
		while (dirent *e = readdir(d)) {
			std::string n = e->d_name;
			if (n.rfind("uverbs", 0) != 0)
				continue;
			std::string ib = read_line("/sys/class/infiniband_verbs/" + n + "/ibdev");
			if (ib.empty() || !wanted(ib))
				continue;
			Device dev;
			dev.name = ib;
			dev.uverbs = "/dev/infiniband/" + n;
			dev.driver_id = ib.rfind("siw", 0) == 0 ? RDMA_DRIVER_SIW : RDMA_DRIVER_RXE;
			cfg.devices.push_back(dev);
		}
		closedir(d);
	}
	std::sort(cfg.devices.begin(), cfg.devices.end(),
		  [](const Device &a, const Device &b) { return a.name < b.name; });
	if (DIR *d = opendir("/sys/class/infiniband_mad")) {
		while (dirent *e = readdir(d)) {
			std::string n = e->d_name;
			if (n.rfind("umad", 0) != 0)
				continue;
			std::string ib = read_line("/sys/class/infiniband_mad/" + n + "/ibdev");
			if (!ib.empty() && wanted(ib) && access(("/dev/infiniband/" + n).c_str(), F_OK) == 0)
				cfg.umads.push_back("/dev/infiniband/" + n);
		}
		closedir(d);
	}
	std::sort(cfg.umads.begin(), cfg.umads.end());
}

bool drop_privileges()
{
	const uid_t nobody = 65534;
	return setgroups(0, nullptr) == 0 && setresgid(nobody, nobody, nobody) == 0 &&
	       setresuid(nobody, nobody, nobody) == 0;
}

[[noreturn]] void worker_main(const Config &cfg, Shared *sh, unsigned wid, unsigned respawn, bool priv)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	Worker w(cfg, sh, wid, respawn, priv);
	// No truncation: a respawned worker goes on in its predecessor's ring.
	if (!cfg.journal_dir.empty() &&
	    !w.journal.open(cfg.journal_dir + "/worker" + std::to_string(wid) + ".journal", false))
		fprintf(stderr, "fuzz_sys: worker %u: no journal in %s: %s\n", wid, cfg.journal_dir.c_str(),
			strerror(errno));
	if (!w.mem.init()) {
		fprintf(stderr, "fuzz_sys: worker %u: mmap: %s\n", wid, strerror(errno));
		_exit(3);
	}
	if (!priv && !drop_privileges()) {
		fprintf(stderr, "fuzz_sys: worker %u: cannot drop privileges: %s\n", wid, strerror(errno));
		_exit(3);
	}
	w.note("start seed=%llu", (unsigned long long)cfg.seed);
	// Weights per round: uverbs write, ioctl, ucm, nldev, umad, links,
	// files. A round of the others spends tens of calls, one of links
	// one or two: at 10, about one call in 500 adds or deletes a link
	// (at 2 a 25000-call run made 6).
	static const unsigned weight[] = {30, 20, 22, 10, 6, 10, 10};
	unsigned total = 0;
	for (unsigned x : weight)
		total += x;
	while (sh->claimed.load() < cfg.calls) {
		uint64_t before = sh->beat[wid].load();
		unsigned r = (unsigned)w.rng.below(total), t = 0;
		while (r >= weight[t])
			r -= weight[t++];
		w.target = t;
		switch (t) {
		case 0: fuzz_uverbs_write(w); break;
		case 1: fuzz_uverbs_ioctl(w); break;
		case 2: fuzz_ucm(w); break;
		case 3: fuzz_nldev(w); break;
		case 4: fuzz_umad(w); break;
		case 5: fuzz_links(w); break;
		default: fuzz_files(w); break;
		}
		close_fds_except(w.journal.fd());
		// A target with nothing to work on (no device, no module)
		// still spends a call, so that the run ends.
		if (sh->beat[wid].load() == before)
			w.take();
	}
	_exit(0);
}

struct Slot {
	pid_t pid = -1;
	unsigned respawns = 0;
	uint64_t last_beat = 0;
	time_t last_progress = 0;
	bool stuck = false;
};

pid_t spawn(const Config &cfg, Shared *sh, unsigned wid, unsigned respawn)
{
	bool priv = wid % 4 != 3; // every fourth worker runs as nobody
	fflush(nullptr);
	pid_t p = fork();
	if (p == 0)
		worker_main(cfg, sh, wid, respawn, priv);
	return p;
}

// Puts the configfs defaults back (the fuzz wrote random ones) and removes
// the directories, so that the devices serve normal connections again.
void restore_configfs(const Config &cfg)
{
	for (auto &d : cfg.devices) {
		std::string dir = "/sys/kernel/config/rdma_cm/" + d.name;
		if (mkdir(dir.c_str(), 0755) && errno != EEXIST)
			continue;
		for (int port = 1; port < 4; port++) {
			std::string p = dir + "/ports/" + std::to_string(port);
			int fd = open((p + "/default_roce_mode").c_str(), O_WRONLY);
			if (fd >= 0) {
				if (write(fd, "RoCE v2", 7) < 0) {
					// iWARP and v1-only ports have no v2.
				}
				close(fd);
			}
			fd = open((p + "/default_roce_tos").c_str(), O_WRONLY);
			if (fd >= 0) {
				if (write(fd, "0", 1) < 0) {
				}
				close(fd);
			}
		}
		rmdir(dir.c_str());
	}
}

} // namespace

int main(int argc, char **argv)
{
	Config cfg;
	std::vector<std::string> want;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (i + 1 >= argc)
			usage();
		std::string v = argv[++i];
		if (a == "--seed")
			cfg.seed = strtoull(v.c_str(), nullptr, 0);
		else if (a == "--calls")
			cfg.calls = strtoull(v.c_str(), nullptr, 0);
		else if (a == "--workers")
			cfg.workers = (unsigned)strtoul(v.c_str(), nullptr, 0);
		else if (a == "--journal")
			cfg.journal_dir = v;
		else if (a == "--devices")
			want = split(v);
		else if (a == "--link-netdevs")
			cfg.link_netdevs = split(v);
		else if (a == "--max-seconds")
			cfg.max_seconds = (unsigned)strtoul(v.c_str(), nullptr, 0);
		else
			usage();
	}
	if (cfg.workers < 1 || cfg.workers > kMaxWorkers)
		usage();
	discover(cfg, want);
	if (!cfg.journal_dir.empty()) {
		mkdir(cfg.journal_dir.c_str(), 0777);
		chmod(cfg.journal_dir.c_str(), 0777); // the unprivileged workers write there too
	}
	printf("fuzz_sys: start seed %llu calls %llu workers %u devices", (unsigned long long)cfg.seed,
	       (unsigned long long)cfg.calls, cfg.workers);
	for (auto &d : cfg.devices)
		printf(" %s(%s)", d.name.c_str(), d.uverbs.c_str());
	printf(" umads %zu\n", cfg.umads.size());
	fflush(stdout);
	signal(SIGPIPE, SIG_IGN);

	auto *sh = (Shared *)mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	std::vector<Slot> slots(cfg.workers);
	time_t t0 = time(nullptr);
	for (unsigned i = 0; i < cfg.workers; i++) {
		slots[i].pid = spawn(cfg, sh, i, 0);
		slots[i].last_progress = t0;
	}

	// The parent's own decisions (whom to kill, when) have their own stream.
	fuzz::Rng prng(fuzz::derive_seed(cfg.seed, 0xffff, 0));
	uint64_t kills = 0, next_kill = cfg.calls / 20 + 1 + prng.below(cfg.calls / 10 + 1);
	uint64_t next_report = cfg.calls / 10;
	unsigned stall_limit = 60;
	if (const char *f = getenv("RDMA_KMOD_TIME_FACTOR"))
		stall_limit *= std::max(1, atoi(f));
	bool timed_out = false;
	unsigned stuck = 0;
	for (;;) {
		bool alive = false;
		time_t now = time(nullptr);
		uint64_t done = std::min<uint64_t>(sh->claimed.load(), cfg.calls);
		for (unsigned i = 0; i < cfg.workers; i++) {
			Slot &s = slots[i];
			if (s.pid < 0)
				continue;
			int st;
			pid_t r = waitpid(s.pid, &st, WNOHANG);
			if (r == s.pid) {
				bool killed_by_us = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
				if (!killed_by_us && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
					// A worker must never die on its own: a
					// fuzzer bug, or a kernel answer it mishandled.
					fprintf(stderr, "fuzz_sys: worker %u died: status %#x\n", i, st);
					sh->violations.fetch_add(1);
				}
				s.pid = -1;
				if (done < cfg.calls && !timed_out) {
					s.pid = spawn(cfg, sh, i, ++s.respawns);
					s.last_progress = now;
				}
				continue;
			}
			alive = true;
			uint64_t b = sh->beat[i].load();
			if (b != s.last_beat) {
				s.last_beat = b;
				s.last_progress = now;
			} else if (!s.stuck && now - s.last_progress > stall_limit) {
				// No progress for a minute: a call that sleeps
				// forever in the kernel. Say so and try to kill it.
				fprintf(stderr, "fuzz_sys: worker %u made no progress for %ld s (journal %s)\n",
					i, (long)(now - s.last_progress), cfg.journal_dir.c_str());
				s.stuck = true;
				stuck++;
				kill(s.pid, SIGKILL);
			} else if (s.stuck && now - s.last_progress > 2 * stall_limit) {
				// Unkillable (D state): give up on it.
				fprintf(stderr, "fuzz_sys: worker %u cannot be killed: left behind\n", i);
				s.pid = -1;
			}
		}
		if (done >= next_kill && done < cfg.calls && !timed_out) {
			unsigned v = (unsigned)prng.below(cfg.workers);
			if (slots[v].pid > 0 && !slots[v].stuck) {
				kill(slots[v].pid, SIGKILL);
				kills++;
			}
			next_kill = done + 1 + prng.below(cfg.calls / 10 + 1);
		}
		if (next_report && done >= next_report && done < cfg.calls) {
			printf("fuzz_sys: progress %llu/%llu calls, %ld s, kills %llu\n", (unsigned long long)done,
			       (unsigned long long)cfg.calls, (long)(now - t0), (unsigned long long)kills);
			fflush(stdout);
			next_report += cfg.calls / 10;
		}
		if (!alive)
			break;
		if (!timed_out && cfg.max_seconds && now - t0 > (time_t)cfg.max_seconds) {
			fprintf(stderr, "fuzz_sys: watchdog: %u s passed, stopping the workers\n", cfg.max_seconds);
			timed_out = true;
			sh->claimed.store(cfg.calls);
			for (auto &s : slots)
				if (s.pid > 0)
					kill(s.pid, SIGKILL);
		}
		if (timed_out && now - t0 > (time_t)cfg.max_seconds + 30)
			break;
		usleep(20000);
	}

	restore_configfs(cfg);
	unsigned left = delete_extra_links();

	// Summary: the most frequent outcomes, errno names.
	std::vector<std::pair<uint64_t, unsigned>> counts;
	uint64_t total = 0;
	for (unsigned e = 0; e < kErrnoSlots; e++) {
		uint64_t c = sh->errnos[e].load();
		total += c;
		if (c)
			counts.push_back({c, e});
	}
	std::sort(counts.rbegin(), counts.rend());
	std::string top;
	for (size_t i = 0; i < counts.size() && i < 6; i++) {
		const char *n = counts[i].second == 0 ? "OK" : strerrorname_np((int)counts[i].second);
		top += (top.empty() ? "" : ",") + std::string(n ? n : "E?") + "=" + std::to_string(counts[i].first);
	}
	static const char *names[kTargets] = {"uverbs_write", "uverbs_ioctl", "ucm", "nldev", "umad", "links", "files"};
	printf("fuzz_sys: succeeded/made per target:");
	for (unsigned t = 0; t < kTargets; t++)
		printf(" %s %llu/%llu", names[t], (unsigned long long)sh->target_ok[t].load(),
		       (unsigned long long)sh->target_calls[t].load());
	printf("\n");
	bool fail = sh->violations.load() || stuck || timed_out || left;
	if (sh->violations.load())
		fprintf(stderr, "fuzz_sys: %llu violations, first: %s\n", (unsigned long long)sh->violations.load(),
			sh->violation);
	if (left)
		fprintf(stderr, "fuzz_sys: %u extra links could not be deleted\n", left);
	printf("fuzz_sys: seed %llu calls %llu workers %u errnos %s kills %llu\n", (unsigned long long)cfg.seed,
	       (unsigned long long)std::min<uint64_t>(sh->claimed.load(), cfg.calls), cfg.workers, top.c_str(),
	       (unsigned long long)kills);
	return fail ? 1 : 0;
}
