// Each libiio function GestureLab calls, forwarded to libiio.so.0, which is opened on first use.
// Only iio_create_local_context can be reached before libiio is loaded: every other call needs
// an object it made.

#include "CLibIIO.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *handle;

static void openLibrary(void) { handle = dlopen("libiio.so.0", RTLD_NOW | RTLD_LOCAL); }

static void *library(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, openLibrary);
    return handle;
}

static void *function(const char *name) {
    void *address = library() ? dlsym(library(), name) : NULL;
    if (!address) {
        fprintf(stderr, "gesture: libiio.so.0 has no %s\n", name);
        abort();
    }
    return address;
}

#define FORWARD(result, name, parameters, arguments)                                     \
    result name parameters {                                                             \
        static result(*target) parameters;                                               \
        if (!target) target = (result(*) parameters)function(#name);                    \
        return target arguments;                                                         \
    }

struct iio_context *iio_create_local_context(void) {
    static struct iio_context *(*target)(void);
    if (!target) {
        if (!library()) {
            errno = ENOSYS;
            return NULL;
        }
        target = (struct iio_context * (*)(void)) function("iio_create_local_context");
    }
    return target();
}

// The tests describe IIO devices in libiio's XML.
FORWARD(struct iio_context *, iio_create_xml_context_mem, (const char *xml, size_t len), (xml, len))
FORWARD(void, iio_context_destroy, (struct iio_context *ctx), (ctx))
FORWARD(unsigned int, iio_context_get_devices_count, (const struct iio_context *ctx), (ctx))
FORWARD(struct iio_device *, iio_context_get_device, (const struct iio_context *ctx, unsigned int index), (ctx, index))
FORWARD(const struct iio_context *, iio_device_get_context, (const struct iio_device *dev), (dev))
FORWARD(const char *, iio_device_get_id, (const struct iio_device *dev), (dev))
FORWARD(const char *, iio_device_get_name, (const struct iio_device *dev), (dev))
FORWARD(bool, iio_device_is_trigger, (const struct iio_device *dev), (dev))
FORWARD(int, iio_device_set_trigger, (const struct iio_device *dev, const struct iio_device *trigger), (dev, trigger))
FORWARD(struct iio_channel *, iio_device_find_channel, (const struct iio_device *dev, const char *name, bool output),
        (dev, name, output))
FORWARD(ssize_t, iio_device_attr_read, (const struct iio_device *dev, const char *attr, char *dst, size_t len),
        (dev, attr, dst, len))
FORWARD(ssize_t, iio_device_attr_write, (const struct iio_device *dev, const char *attr, const char *src),
        (dev, attr, src))
FORWARD(struct iio_buffer *, iio_device_create_buffer, (const struct iio_device *dev, size_t samples_count, bool cyclic),
        (dev, samples_count, cyclic))
FORWARD(void, iio_channel_enable, (struct iio_channel *chn), (chn))
FORWARD(void, iio_channel_convert, (const struct iio_channel *chn, void *dst, const void *src), (chn, dst, src))
FORWARD(const struct iio_data_format *, iio_channel_get_data_format, (const struct iio_channel *chn), (chn))
FORWARD(ssize_t, iio_channel_attr_read, (const struct iio_channel *chn, const char *attr, char *dst, size_t len),
        (chn, attr, dst, len))
FORWARD(int, iio_channel_attr_read_double, (const struct iio_channel *chn, const char *attr, double *val),
        (chn, attr, val))
FORWARD(int, iio_channel_attr_read_longlong, (const struct iio_channel *chn, const char *attr, long long *val),
        (chn, attr, val))
FORWARD(int, iio_channel_attr_write_double, (const struct iio_channel *chn, const char *attr, double val),
        (chn, attr, val))
FORWARD(void, iio_buffer_destroy, (struct iio_buffer *buf), (buf))
FORWARD(void *, iio_buffer_start, (const struct iio_buffer *buf), (buf))
FORWARD(void *, iio_buffer_end, (const struct iio_buffer *buf), (buf))
FORWARD(void *, iio_buffer_first, (const struct iio_buffer *buf, const struct iio_channel *chn), (buf, chn))
FORWARD(ptrdiff_t, iio_buffer_step, (const struct iio_buffer *buf), (buf))
FORWARD(ssize_t, iio_buffer_refill, (struct iio_buffer *buf), (buf))
FORWARD(int, iio_buffer_get_poll_fd, (struct iio_buffer *buf), (buf))
FORWARD(int, iio_buffer_set_blocking_mode, (struct iio_buffer *buf, bool blocking), (buf, blocking))
