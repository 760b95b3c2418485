// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* siw Terminate messages (placeholder). */
#include "siw.h"
