// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Can one process reach the verbs objects of another? (selftests/vm/isolation.sh)
//   uverbs_isolation foreign [UID]
// The parent opens /dev/infiniband/uverbs0 and makes two PDs and an MR over
// a patterned buffer; a child (running as UID when given) opens its own file
// and uses the parent's handle numbers with the write() and ioctl commands,
// and tries to open the parent's file through /proc. Each attempt prints
// "NAME: ERRNO" (0 when it succeeded). The parent then checks that its
// objects still answer and its buffer is untouched, and prints "parent: ...".
//   uverbs_isolation ctx [PATH]
// Opens PATH (uverbs0 by default) and asks for a context: "open: E ctx: E".
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "rdma_nl.h"
#include "uverbs_raw.h"

using rk::Ioctl;
using rk::UverbsFile;

namespace {

const char *kDev = "/dev/infiniband/uverbs0";
constexpr size_t kLen = 8192;
alignas(4096) unsigned char buf[kLen];

struct Handles {
	uint32_t pd0, pd1, mr;
	int fd;
};

void report(const char *what, int err)
{
	printf("%s: %s\n", what, err ? rk::errno_name(err).c_str() : "0");
}

int drop_to(uid_t uid)
{
	if (setgroups(0, nullptr) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return errno;
	return 0;
}

// The child: its own file, the parent's numbers.
int child(const Handles &h, pid_t parent, long uid)
{
	static unsigned char mine[4096] __attribute__((aligned(4096)));
	uint32_t mr;
	int err;

	if (uid >= 0 && (err = drop_to(uid))) {
		report("child setuid", err);
		return 1;
	}
	UverbsFile f(kDev);
	if (!f.is_open()) {
		report("child open", errno);
		return 1;
	}
	report("child get_context", f.get_context());
	report("write dealloc_pd(parent pd0)", f.dealloc_pd(h.pd0));
	report("write dealloc_pd(parent pd1)", f.dealloc_pd(h.pd1));
	report("write dereg_mr(parent mr)", f.dereg_mr(h.mr));
	report("write reg_mr(on parent pd1)",
	       f.reg_mr(h.pd1, (uintptr_t)mine, sizeof(mine), (uintptr_t)mine,
			IB_UVERBS_ACCESS_LOCAL_WRITE, &mr));

	Ioctl d(UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY);
	d.obj(UVERBS_ATTR_DESTROY_MR_HANDLE, h.mr);
	report("ioctl mr_destroy(parent mr)", d.run(f));
	Ioctl p(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	p.obj(UVERBS_ATTR_DESTROY_PD_HANDLE, h.pd1);
	report("ioctl pd_destroy(parent pd1)", p.run(f));

	std::string path = "/proc/" + std::to_string(parent) + "/fd/" +
			   std::to_string(h.fd);
	int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
	report("open parent's uverbs fd via /proc", fd < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);
	return 0;
}

int foreign(long uid)
{
	Handles h{};
	int err;

	memset(buf, 0xa5, sizeof(buf));
	UverbsFile f(kDev);
	if (!f.is_open()) {
		report("parent open", errno);
		return 1;
	}
	h.fd = f.fd();
	if ((err = f.get_context()) || (err = f.alloc_pd(&h.pd0)) ||
	    (err = f.alloc_pd(&h.pd1)) ||
	    (err = f.reg_mr(h.pd1, (uintptr_t)buf, kLen, (uintptr_t)buf,
			    IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |
				    IB_UVERBS_ACCESS_REMOTE_READ,
			    &h.mr))) {
		report("parent objects", err);
		return 1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int rc = child(h, getppid(), uid);

		fflush(stdout);
		_exit(rc);
	}
	int st;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("child: exit %d\n", st);

	bool same = true;
	for (unsigned char c : buf)
		same = same && c == 0xa5;
	printf("parent: buffer %s\n", same ? "unchanged" : "CHANGED");
	report("parent dereg_mr", f.dereg_mr(h.mr));
	report("parent dealloc_pd(pd1)", f.dealloc_pd(h.pd1));
	report("parent dealloc_pd(pd0)", f.dealloc_pd(h.pd0));
	return 0;
}

int ctx(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	report("open", fd < 0 ? errno : 0);
	if (fd < 0)
		return 0;
	close(fd);
	UverbsFile f(path);
	report("get_context", f.get_context());
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "foreign"))
		return foreign(argc >= 3 ? strtol(argv[2], nullptr, 0) : -1);
	if (argc >= 2 && !strcmp(argv[1], "ctx"))
		return ctx(argc >= 3 ? argv[2] : kDev);
	fprintf(stderr, "usage: %s foreign [UID] | ctx [PATH]\n", argv[0]);
	return 2;
}
