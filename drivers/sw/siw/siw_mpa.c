// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* siw MPA frames (placeholder). */
#include "siw.h"
