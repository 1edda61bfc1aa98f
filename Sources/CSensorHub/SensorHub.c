#include "CSensorHub.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/uhid.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

/* Sensor usage page 0x20. Each property and axis is a field of its own, because the kernel's
   sensor hub matches a field by its first usage only. */
#define TIMESTAMP                                                              \
    0x55, 0x0A,       /* Unit Exponent (-6): µs */                            \
    0x0A, 0x29, 0x05, /* Usage (Data Field: Timestamp) */                     \
    0x95, 0x02,       /* Report Count (2): 64 bits, which the drivers read whole */ \
    0x81, 0x02
#define FEATURES(exponent)                                                   \
    0x0A, 0x16, 0x03, /* Usage (Property: Reporting State) */               \
    0x15, 0x00, 0x25, 0x05, 0x75, 0x08, 0x95, 0x01, 0x55, 0x00,               \
    0xB1, 0x02,       /* Feature (Data, Var, Abs) */                          \
    0x0A, 0x19, 0x03, /* Usage (Property: Power State) */                   \
    0xB1, 0x02,                                                              \
    0x0A, 0x0E, 0x03, /* Usage (Property: Report Interval), ms */           \
    0x27, 0xFF, 0xFF, 0x00, 0x00, 0x75, 0x20,                                \
    0xB1, 0x02,                                                              \
    0x17, 0x00, 0x00, 0x00, 0x80, /* Logical Minimum (-2^31) */             \
    0x27, 0xFF, 0xFF, 0xFF, 0x7F, /* Logical Maximum (2^31 - 1) */          \
    0x55, exponent                /* Unit Exponent */

static const uint8_t descriptor[] = {
    0x05, 0x20,       /* Usage Page (Sensor) */
    0x09, 0x01,       /* Usage (Sensor) */
    0xA1, 0x01,       /* Collection (Application) */
    0x85, sensor_hub_accelerometer,
    0x09, 0x73,       /* Usage (Accelerometer 3D) */
    0xA1, 0x00,       /* Collection (Physical) */
    FEATURES(0x0D),   /* 10^-3 */
    0x0A, 0x53, 0x04, 0x81, 0x02, /* Usage (Acceleration Axis X), Input (Data, Var, Abs) */
    0x0A, 0x54, 0x04, 0x81, 0x02,
    0x0A, 0x55, 0x04, 0x81, 0x02,
    TIMESTAMP,
    0xC0,
    0x85, sensor_hub_gyrometer,
    0x09, 0x76,       /* Usage (Gyrometer 3D) */
    0xA1, 0x00,
    FEATURES(0x0E),   /* 10^-2 */
    0x0A, 0x57, 0x04, 0x81, 0x02, /* Usage (Angular Velocity X Axis) */
    0x0A, 0x58, 0x04, 0x81, 0x02,
    0x0A, 0x59, 0x04, 0x81, 0x02,
    TIMESTAMP,
    0xC0,
    0xC0,
};

enum { feature_size = 1 + 1 + 1 + 4, input_size = 1 + 3 * 4 + 8 };

/* Per report: its feature report and its latest input report, both with the ID first. */
static uint8_t features[3][feature_size];
static uint8_t inputs[3][input_size];

static int send_event(int fd, const struct uhid_event *event) {
    ssize_t written = write(fd, event, sizeof(*event));
    return written == (ssize_t)sizeof(*event) ? 0 : -errno;
}

int sensor_hub_create(const char *name) {
    int fd = open("/dev/uhid", O_RDWR | O_CLOEXEC);
    if (fd < 0) return -errno;
    for (int report = 1; report <= 2; report++) {
        memset(features[report], 0, feature_size);
        features[report][0] = (uint8_t)report;
        features[report][3] = 20; /* report interval 20 ms */
        memset(inputs[report], 0, input_size);
        inputs[report][0] = (uint8_t)report;
    }
    struct uhid_event event;
    memset(&event, 0, sizeof(event));
    event.type = UHID_CREATE2;
    strncpy((char *)event.u.create2.name, name, sizeof(event.u.create2.name) - 1);
    event.u.create2.rd_size = sizeof(descriptor);
    event.u.create2.bus = 0x03; /* BUS_USB */
    event.u.create2.vendor = 0x1d6b;
    event.u.create2.product = 0x4753;
    memcpy(event.u.create2.rd_data, descriptor, sizeof(descriptor));
    int status = send_event(fd, &event);
    if (status < 0) {
        close(fd);
        return status;
    }
    return fd;
}

int sensor_hub_send(int fd, int report, const int32_t values[3], int64_t stamp) {
    if (report < 1 || report > 2) return -EINVAL;
    memcpy(inputs[report] + 1, values, 3 * sizeof(int32_t));
    memcpy(inputs[report] + 1 + 3 * sizeof(int32_t), &stamp, sizeof stamp);
    struct uhid_event event;
    memset(&event, 0, sizeof(event));
    event.type = UHID_INPUT2;
    event.u.input2.size = input_size;
    memcpy(event.u.input2.data, inputs[report], input_size);
    return send_event(fd, &event);
}

static int answer(int fd, const struct uhid_event *request) {
    struct uhid_event reply;
    memset(&reply, 0, sizeof(reply));
    if (request->type == UHID_GET_REPORT) {
        int report = request->u.get_report.rnum;
        reply.type = UHID_GET_REPORT_REPLY;
        reply.u.get_report_reply.id = request->u.get_report.id;
        if (report < 1 || report > 2) {
            reply.u.get_report_reply.err = EIO;
        } else if (request->u.get_report.rtype == UHID_FEATURE_REPORT) {
            reply.u.get_report_reply.size = feature_size;
            memcpy(reply.u.get_report_reply.data, features[report], feature_size);
        } else {
            reply.u.get_report_reply.size = input_size;
            memcpy(reply.u.get_report_reply.data, inputs[report], input_size);
        }
        return send_event(fd, &reply);
    }
    if (request->type == UHID_SET_REPORT) {
        int report = request->u.set_report.rnum;
        reply.type = UHID_SET_REPORT_REPLY;
        reply.u.set_report_reply.id = request->u.set_report.id;
        if (report >= 1 && report <= 2 && request->u.set_report.rtype == UHID_FEATURE_REPORT
            && request->u.set_report.size <= feature_size) {
            memcpy(features[report], request->u.set_report.data, request->u.set_report.size);
        } else {
            reply.u.set_report_reply.err = EIO;
        }
        return send_event(fd, &reply);
    }
    return 0;
}

int sensor_hub_service(int fd, int timeout_ms) {
    int answered = 0;
    struct pollfd waiting = {.fd = fd, .events = POLLIN};
    while (poll(&waiting, 1, answered ? 0 : timeout_ms) > 0) {
        struct uhid_event request;
        ssize_t count = read(fd, &request, sizeof(request));
        if (count < 0) return -errno;
        int status = answer(fd, &request);
        if (status < 0) return status;
        answered++;
    }
    return answered;
}

void sensor_hub_destroy(int fd) {
    struct uhid_event event;
    memset(&event, 0, sizeof(event));
    event.type = UHID_DESTROY;
    send_event(fd, &event);
    close(fd);
}
