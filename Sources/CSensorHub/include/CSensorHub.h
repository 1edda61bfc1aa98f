#ifndef GESTURELAB_CSENSORHUB_H
#define GESTURELAB_CSENSORHUB_H

#include <stdint.h>

/// A fake HID sensor hub behind /dev/uhid, for tests: an Accelerometer 3D (report 1, counts of
/// 0.001 g) and a Gyrometer 3D (report 2, counts of 0.01 °/s). The kernel's hid-sensor-hub,
/// hid-sensor-accel-3d and hid-sensor-gyro-3d drivers turn them into real IIO devices. Each reading
/// carries the hub's own timestamp (µs), as hubs that stamp their readings do.

enum { sensor_hub_accelerometer = 1, sensor_hub_gyrometer = 2 };

/// Creates the hub; returns the /dev/uhid descriptor, or -errno.
int sensor_hub_create(const char *name);

/// Sends one input report: three axis values, in counts, taken at `stamp` µs on the hub's clock.
int sensor_hub_send(int fd, int report, const int32_t values[3], int64_t stamp);

/// Answers the kernel's requests (GET_REPORT, SET_REPORT) for up to timeout_ms; returns how many
/// were answered, or -errno.
int sensor_hub_service(int fd, int timeout_ms);

/// Removes the hub, as if it were unplugged.
void sensor_hub_destroy(int fd);

#endif
