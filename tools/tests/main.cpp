// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <cstdio>

#include <gtest/gtest.h>

#include "util.h"

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	printf("rdma_core_tests: stack=%s\n",
	       rk::in_vm() ? rk::stack().c_str() : "(none: not in the VM runner, kernel tests skip)");
	return RUN_ALL_TESTS();
}
