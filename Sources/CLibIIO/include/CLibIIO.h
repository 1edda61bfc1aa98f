#ifndef GESTURELAB_CLIBIIO_H
#define GESTURELAB_CLIBIIO_H

// libiio's API (Debian: libiio-dev), loaded only when it is first used: a program that never
// opens an IIO device does not carry libiio and the fifteen libraries it brings. Where libiio.so.0
// is missing, iio_create_local_context returns NULL with errno ENOSYS.
#include <iio.h>

#endif
