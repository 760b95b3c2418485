#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The C++ MultiDevice suite (several rxe/siw devices at once: creation,
# dumps across netlink datagrams, concurrent churn), apart from the rest of
# core_tests.sh for its run time.
export CORE_TESTS_FILTER='MultiDevice.*'
exec sh "${RDMA_KMOD_SRC:-.}/selftests/vm/core_tests.sh" "$@"
