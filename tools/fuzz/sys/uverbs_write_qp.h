// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The write target's QP commands (uverbs_write_qp.cpp), one function each,
// for the op table of uverbs_write.cpp.
#pragma once

#include "uverbs_state.h"

namespace fz::uvw {

void create_qp(Worker &w, UvState &s);
void query_qp(Worker &w, UvState &s);
void modify_qp(Worker &w, UvState &s);
void destroy_qp(Worker &w, UvState &s);
void post_send(Worker &w, UvState &s);
void post_qp_recv(Worker &w, UvState &s);
void post_srq_recv(Worker &w, UvState &s);
void create_ah(Worker &w, UvState &s);
void mcast(Worker &w, UvState &s);

} // namespace fz::uvw
