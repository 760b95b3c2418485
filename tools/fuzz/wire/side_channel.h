// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The TCP side channel between victim and attacker: one connection, text
// lines. The victim sends "INFO key=value ..." (values in hex) describing
// its live targets; the attacker sends "DONE ..." when it has finished.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace fw {

using Info = std::map<std::string, uint64_t>;

std::string info_line(const Info &info);
// false if @line is not an INFO line
bool parse_info(const std::string &line, Info &info);
// value of @key, or @def when absent
uint64_t info_get(const Info &info, const std::string &key, uint64_t def = 0);

// victim: listen on @port (all addresses) and accept one client; -1 on error
int side_accept(uint16_t port);
// attacker: connect to @host:@port, retrying for up to @secs seconds
int side_connect(const std::string &host, uint16_t port, int secs);
bool side_send_line(int fd, const std::string &line);
// one line without its newline; false on EOF/error or after @secs seconds
bool side_read_line(int fd, std::string &line, int secs);

} // namespace fw
