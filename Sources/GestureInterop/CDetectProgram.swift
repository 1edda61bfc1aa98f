/// `gesture_detect.c`, the Linux program the C export writes beside the library: raw readings from an
/// IIO device's buffer, an input device, or CSV on standard input, through the library's front end,
/// detections out as `gesture detect` prints them. Plain C99 and POSIX with Linux's sysfs and ioctls:
/// a board needs a C compiler only. It converts and times readings as GestureLab's own readers do
/// (`IIOSensor`, `EvdevSensor`, `ReportOnChangeResampler`, `DeviceClock`).
enum CDetectProgram {
    static let source = #"""
        /* gesture_detect: a sensor's readings in, detections out on standard output as `gesture detect` prints them.

               gesture_detect [--iio NAME[+NAME] | --evdev DEVICE] [--rate HZ] [--count N] [--readings FILE]

           --iio NAME        an IIO device by its name (cat /sys/bus/iio/devices/iio:deviceN/name): one with accelerometer
                             and gyroscope channels (mpu6050), or NAME+NAME, an accelerometer and a gyroscope device
                             (accel_3d+gyro_3d). Read from its buffer (/dev/iio:deviceN), timed by its timestamp channel.
           --evdev DEVICE    an input device with ABS_X/Y/Z (units per g) and ABS_RX/RY/RZ (units per degree/s):
                             /dev/input/eventN, or its name. Timed by the kernel, or by the device's MSC_TIMESTAMP.
           neither           CSV lines on standard input, each: time in seconds, acceleration x, y, z in g (gravity
                             included), rotation rate x, y, z in rad/s, on the sensor's axes, e.g.
                                 12.340,0.012,-0.998,0.031,0.104,-0.020,0.003
                             A first line that does not start with a number (a header) is skipped.
           --rate HZ         readings a second (default GESTURE_BOARD_RATE), a whole multiple of GESTURE_RATE; an IIO
                             device is set to it. `gesture_detect HZ` means the same.
           --count N         stop after N readings.
           --readings FILE   also write each reading read to FILE, as the CSV lines standard input takes.

           Needs Linux for --iio and --evdev (sysfs, /dev, ioctl); the CSV reader is plain C99. Ctrl-C stops. */
        #define _POSIX_C_SOURCE 200809L
        #include "gesture_model.h"

        #include <errno.h>
        #include <math.h>
        #include <signal.h>
        #include <stdarg.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>

        #ifdef __linux__
        #include <dirent.h>
        #include <fcntl.h>
        #include <linux/input.h>
        #include <poll.h>
        #include <sys/ioctl.h>
        #include <time.h>
        #include <unistd.h>
        #endif

        typedef struct {
            double time, acceleration[3], rotation_rate[3];
        } reading;

        static volatile sig_atomic_t stopping = 0;

        static void stop(int signal_number) {
            (void)signal_number;
            stopping = 1;
        }

        /* One line on standard error, then the exit `code`: 2 for what the user must change, 1 for a device that
           stopped. */
        static void fail(int code, const char *format, ...) {
            va_list arguments;
            va_start(arguments, format);
            fputs("gesture_detect: ", stderr);
            vfprintf(stderr, format, arguments);
            fputc('\n', stderr);
            va_end(arguments);
            exit(code);
        }

        /* ---- CSV on standard input ---- */

        static long csv_line = 0, csv_readings = 0;

        static int read_csv(reading *r) {
            char line[1024];
            while (fgets(line, sizeof line, stdin) != NULL) {
                double *a = r->acceleration, *g = r->rotation_rate, last = r->time;
                csv_line++;
                if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &r->time, &a[0], &a[1], &a[2], &g[0], &g[1], &g[2]) != 7) {
                    if (csv_line == 1 && sscanf(line, "%lf", &r->time) != 1) continue;
                    fail(2, "line %ld: expected time,ax,ay,az,gx,gy,gz", csv_line);
                }
                if (csv_readings++ > 0 && !(r->time > last))
                    fail(2, "line %ld: time %.9g is not after the one before it", csv_line, r->time);
                return 1;
            }
            return 0;
        }

        #ifdef __linux__

        /* ---- sysfs ---- */

        /* The first line of a sysfs file, without its newline; 0 if it cannot be read. */
        static int read_text(const char *path, char *text, size_t size) {
            FILE *file = fopen(path, "r");
            int ok = file != NULL && fgets(text, (int)size, file) != NULL;
            if (file != NULL) fclose(file);
            if (ok) text[strcspn(text, "\n")] = '\0';
            return ok;
        }

        /* Writes an attribute that exists: sysfs makes none, and neither does this. */
        static int write_text(const char *path, const char *text) {
            int fd = open(path, O_WRONLY | O_TRUNC), ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
            if (fd >= 0 && close(fd) != 0) ok = 0;
            return ok;
        }

        /* ---- device clocks ---- */

        /* A device's own clock on the monotonic one: anchored where a reading arrived, keeping the device's intervals,
           and anchored again only when it is more than a second off the arrival time. */
        typedef struct {
            int anchored;
            double arrival, device;
        } device_clock;

        static double device_clock_time(device_clock *clock, double device, double arrival) {
            double time = clock->arrival + (device - clock->device);
            if (clock->anchored && fabs(time - arrival) <= 1.0) return time;
            clock->anchored = 1;
            clock->arrival = arrival;
            clock->device = device;
            return arrival;
        }

        /* ---- IIO ---- */

        /* Where IIO devices and their nodes are; other places only for tests on a made-up sysfs. */
        #ifndef IIO_ROOT
        #define IIO_ROOT "/sys/bus/iio/devices"
        #endif
        #ifndef IIO_NODES
        #define IIO_NODES "/dev"
        #endif
        #define FOLDER_SIZE (sizeof IIO_ROOT + 260)
        #define PATH_SIZE (FOLDER_SIZE + sizeof IIO_NODES + 256)

        /* One element of a scan, as scan_elements/in_*_type describes it: "le:s16/16>>0". */
        typedef struct {
            int enabled, index, offset, bytes, bits, shift, is_signed, big_endian;
        } iio_element;

        enum { ACCEL_X, ACCEL_Y, ACCEL_Z, ANGLVEL_X, ANGLVEL_Y, ANGLVEL_Z, TIMESTAMP, ELEMENTS };

        static const char *const iio_elements[ELEMENTS] = {"accel_x",   "accel_y",   "accel_z", "anglvel_x",
                                                          "anglvel_y", "anglvel_z", "timestamp"};

        typedef struct {
            char name[128], folder[FOLDER_SIZE];
            int fd, enabled, has_accel, has_gyro;
            iio_element element[ELEMENTS];
            double scale[6], offset[6], mount[2][9];
            int mounted[2];
            int scan_bytes, buffered, used;
            unsigned char buffer[4096];
        } iio_device;

        /* A queued scan of a device: its time and its six values (g and rad/s). */
        typedef struct {
            double time, values[6];
        } iio_scan;

        typedef struct {
            iio_device devices[2];
            int count, paired;
            double period;
            iio_scan queue[64]; /* the gyroscope device's scans not yet paired */
            int queued;
            long lost;
            /* The scans' clock: 0 not known yet, 1 the kernel's (monotonic), 2 a sensor hub's own, anchored. */
            int clock;
            device_clock hub;
        } iio_source;

        static iio_device *opened_iio[2];

        /* The buffers gesture_detect enabled, disabled again at exit, so that others can read the devices. */
        static void release_iio(void) {
            int i;
            for (i = 0; i < 2; i++) {
                char path[PATH_SIZE];
                if (opened_iio[i] == NULL || !opened_iio[i]->enabled) continue;
                snprintf(path, sizeof path, "%s/buffer/enable", opened_iio[i]->folder);
                write_text(path, "0");
            }
        }

        /* A channel's attribute as the IIO ABI shares it: in_accel_x_scale, in_accel_scale, in_scale, then the
           device's scale. */
        static int iio_attribute(const iio_device *device, const char *type, const char *axis, const char *attribute,
                                 char *text, size_t size) {
            char path[PATH_SIZE];
            snprintf(path, sizeof path, "%s/in_%s_%s_%s", device->folder, type, axis, attribute);
            if (read_text(path, text, size)) return 1;
            snprintf(path, sizeof path, "%s/in_%s_%s", device->folder, type, attribute);
            if (read_text(path, text, size)) return 1;
            snprintf(path, sizeof path, "%s/in_%s", device->folder, attribute);
            if (read_text(path, text, size)) return 1;
            snprintf(path, sizeof path, "%s/%s", device->folder, attribute);
            return read_text(path, text, size);
        }

        static double iio_number(const iio_device *device, const char *type, const char *axis, const char *attribute,
                                 double otherwise) {
            char text[64], *end;
            double value;
            if (!iio_attribute(device, type, axis, attribute, text, sizeof text)) return otherwise;
            value = strtod(text, &end);
            return end == text ? otherwise : value;
        }

        /* Finds the IIO device named `name` (not a trigger); 0 if there is none. */
        static int iio_find(const char *name, iio_device *device) {
            DIR *folder = opendir(IIO_ROOT);
            struct dirent *entry;
            int found = 0;
            if (folder == NULL) return 0;
            while (!found && (entry = readdir(folder)) != NULL) {
                char path[PATH_SIZE], text[64];
                if (strncmp(entry->d_name, "iio:device", 10) != 0) continue;
                snprintf(path, sizeof path, "%s/%s/name", IIO_ROOT, entry->d_name);
                if (read_text(path, text, sizeof text) && strcmp(text, name) == 0) {
                    snprintf(device->folder, sizeof device->folder, "%s/%s", IIO_ROOT, entry->d_name);
                    snprintf(device->name, sizeof device->name, "%s", name);
                    found = 1;
                }
            }
            closedir(folder);
            return found;
        }

        /* "x1, y1, z1; x2, y2, z2; x3, y3, z3", rows first; 0 unless it is one and not the identity. */
        static int iio_mount_matrix(const char *text, double *matrix) {
            const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            int i, same = 1;
            if (sscanf(text, "%lf , %lf , %lf ; %lf , %lf , %lf ; %lf , %lf , %lf", &matrix[0], &matrix[1], &matrix[2],
                       &matrix[3], &matrix[4], &matrix[5], &matrix[6], &matrix[7], &matrix[8]) != 9)
                return 0;
            for (i = 0; i < 9; i++) same = same && matrix[i] == identity[i];
            return !same;
        }

        /* The device's channels, conversions and scan layout, with the elements of `wanted` (and the timestamp)
           enabled and every other element disabled. */
        static void iio_prepare(iio_device *device, const char *id, int wanted_accel, int wanted_gyro) {
            const char *axes[3] = {"x", "y", "z"};
            char path[PATH_SIZE], text[64];
            DIR *folder;
            struct dirent *entry;
            int i, largest = 1, placed[ELEMENTS] = {0};
            snprintf(path, sizeof path, "%s/scan_elements", device->folder);
            if ((folder = opendir(path)) == NULL) fail(2, "%s: %s has no buffer (no %s)", id, device->name, path);
            snprintf(path, sizeof path, "%s/buffer/enable", device->folder);
            if (!write_text(path, "0")) fail(2, "%s: cannot write %s: %s", id, path, strerror(errno));
            while ((entry = readdir(folder)) != NULL) {
                size_t length = strlen(entry->d_name);
                if (length > 3 && strcmp(entry->d_name + length - 3, "_en") == 0) {
                    snprintf(path, sizeof path, "%s/scan_elements/%s", device->folder, entry->d_name);
                    write_text(path, "0");
                }
            }
            closedir(folder);
            for (i = 0; i < ELEMENTS; i++) {
                iio_element *e = &device->element[i];
                unsigned bits, storage, shift = 0;
                char *shifted;
                int want = i == TIMESTAMP || (i < ANGLVEL_X ? wanted_accel : wanted_gyro);
                snprintf(path, sizeof path, "%s/scan_elements/in_%s_type", device->folder, iio_elements[i]);
                if (!read_text(path, text, sizeof text)) continue;
                if (strlen(text) < 4 || sscanf(text + 3, "%*c%u/%u", &bits, &storage) != 2 || storage < 8) continue;
                if ((shifted = strstr(text, ">>")) != NULL) shift = (unsigned)atoi(shifted + 2);
                e->big_endian = strncmp(text, "be", 2) == 0;
                e->is_signed = text[3] == 's';
                e->bits = (int)bits;
                e->bytes = (int)storage / 8;
                e->shift = (int)shift;
                snprintf(path, sizeof path, "%s/scan_elements/in_%s_index", device->folder, iio_elements[i]);
                e->index = read_text(path, text, sizeof text) ? atoi(text) : i;
                if (i < TIMESTAMP) {
                    if (i < ANGLVEL_X) device->has_accel++;
                    else device->has_gyro++;
                }
                if (!want) continue;
                snprintf(path, sizeof path, "%s/scan_elements/in_%s_en", device->folder, iio_elements[i]);
                if (!write_text(path, "1"))
                    fail(2, "%s: cannot enable %s's %s: %s", id, device->name, iio_elements[i], strerror(errno));
                e->enabled = 1;
            }
            device->has_accel = device->has_accel == 3;
            device->has_gyro = device->has_gyro == 3;
            if (!device->element[TIMESTAMP].enabled) fail(2, "%s: %s has no timestamp channel", id, device->name);
            /* Each element at a multiple of its size, in index order; the scan padded to its largest element. */
            for (;;) {
                iio_element *next = NULL;
                for (i = 0; i < ELEMENTS; i++) {
                    iio_element *e = &device->element[i];
                    if (e->enabled && !placed[i] && (next == NULL || e->index < next->index)) next = e;
                }
                if (next == NULL) break;
                placed[next - device->element] = 1;
                next->offset = (device->scan_bytes + next->bytes - 1) / next->bytes * next->bytes;
                device->scan_bytes = next->offset + next->bytes;
                if (next->bytes > largest) largest = next->bytes;
            }
            device->scan_bytes = (device->scan_bytes + largest - 1) / largest * largest;
            for (i = 0; i < 6; i++) {
                const char *type = i < 3 ? "accel" : "anglvel";
                device->scale[i] = iio_number(device, type, axes[i % 3], "scale", 1);
                device->offset[i] = iio_number(device, type, axes[i % 3], "offset", 0);
            }
            for (i = 0; i < 2; i++) {
                const char *type = i == 0 ? "accel" : "anglvel";
                device->mounted[i] = iio_attribute(device, type, "x", "mount_matrix", text, sizeof text) &&
                                     iio_mount_matrix(text, device->mount[i]);
            }
        }

        /* Sets the sampling frequency nearest to `rate` the device offers; returns the one it runs at. */
        static double iio_set_rate(iio_device *device, const char *id, double rate) {
            const char *type = device->has_accel ? "accel" : "anglvel";
            char text[256], path[512], *cursor, *end;
            double chosen = rate, fastest = 0, actual;
            if (iio_attribute(device, type, "x", "sampling_frequency_available", text, sizeof text)) {
                double best = -1;
                for (cursor = text;; cursor = end) {
                    double offered = strtod(cursor, &end);
                    if (end == cursor) break;
                    if (offered > fastest) fastest = offered;
                    if (best < 0 || fabs(offered - rate) < fabs(best - rate)) best = offered;
                }
                if (fastest > 0 && rate > fastest * 1.01)
                    fail(2, "%s: %s cannot sample at %g Hz; it can do %s Hz", id, device->name, rate, text);
                if (best > 0) chosen = best;
            }
            snprintf(text, sizeof text, "%.6f", chosen);
            snprintf(path, sizeof path, "%s/in_%s_sampling_frequency", device->folder, type);
            if (!write_text(path, text)) {
                snprintf(path, sizeof path, "%s/sampling_frequency", device->folder);
                write_text(path, text);
            }
            actual = iio_number(device, type, "x", "sampling_frequency", 0);
            return actual > 0 ? actual : rate;
        }

        /* The device's own trigger (NAME-devN), if it takes triggers; its buffer enabled and opened. */
        static void iio_start(iio_device *device, const char *id) {
            char path[PATH_SIZE], text[64], trigger[64] = "";
            DIR *folder = opendir(IIO_ROOT);
            struct dirent *entry;
            size_t length = strlen(device->name);
            snprintf(path, sizeof path, "%s/current_timestamp_clock", device->folder);
            write_text(path, "monotonic");
            while (folder != NULL && trigger[0] == '\0' && (entry = readdir(folder)) != NULL) {
                if (strncmp(entry->d_name, "trigger", 7) != 0) continue;
                snprintf(path, sizeof path, "%s/%s/name", IIO_ROOT, entry->d_name);
                if (read_text(path, text, sizeof text) && strncmp(text, device->name, length) == 0 && text[length] == '-')
                    snprintf(trigger, sizeof trigger, "%s", text);
            }
            if (folder != NULL) closedir(folder);
            snprintf(path, sizeof path, "%s/trigger/current_trigger", device->folder);
            if (access(path, F_OK) == 0) { /* a device that takes triggers */
                if (!read_text(path, text, sizeof text)) text[0] = '\0';
                if (trigger[0] != '\0' && !write_text(path, trigger))
                    fail(2, "%s: cannot set %s's trigger %s: %s", id, device->name, trigger, strerror(errno));
                if (trigger[0] == '\0' && text[0] == '\0') fail(2, "%s: %s has no trigger of its own", id, device->name);
            }
            snprintf(path, sizeof path, "%s/buffer/length", device->folder);
            write_text(path, "128");
            snprintf(path, sizeof path, "%s/%s", IIO_NODES, strrchr(device->folder, '/') + 1);
            device->fd = open(path, O_RDONLY | O_NONBLOCK);
            if (device->fd < 0)
                fail(2, "%s: cannot open %s: %s%s", id, path, strerror(errno),
                     errno == EACCES ? "; give your user access to /dev/iio:device* (a udev rule, see docs/boards.md)" : "");
            snprintf(path, sizeof path, "%s/buffer/enable", device->folder);
            if (!write_text(path, "1")) fail(2, "%s: cannot enable %s's buffer: %s", id, device->name, strerror(errno));
            device->enabled = 1;
        }

        /* `--iio NAME[+NAME]`: the accelerometer (and gyroscope) devices found, set to `rate`, started. */
        static void iio_open(iio_source *source, const char *id, double *rate) {
            char names[128], *gyro;
            int i;
            snprintf(names, sizeof names, "%s", strncmp(id, "iio:", 4) == 0 ? id + 4 : id);
            if ((gyro = strchr(names, '+')) != NULL) *gyro++ = '\0';
            source->count = gyro != NULL ? 2 : 1;
            for (i = 0; i < source->count; i++) {
                const char *name = i == 0 ? names : gyro;
                if (!iio_find(name, &source->devices[i]))
                    fail(2, "%s: no IIO device named '%s' in %s", id, name, IIO_ROOT);
                iio_prepare(&source->devices[i], id, i == 0, source->count == 1 || i == 1);
            }
            if (!source->devices[0].has_accel)
                fail(2, "%s: %s has no in_accel_x/y/z channels in its buffer", id, source->devices[0].name);
            if (!source->devices[source->count - 1].has_gyro)
                fail(2, "%s: %s has no in_anglvel_x/y/z channels in its buffer%s", id, source->devices[source->count - 1].name,
                     source->count == 1 ? "; name its gyroscope device too: --iio NAME+GYRO" : "");
            for (i = 0; i < source->count; i++) {
                double actual = iio_set_rate(&source->devices[i], id, *rate);
                if (i == 0) *rate = actual;
            }
            /* The gyroscope first: the first accelerometer scans then find their partners in its buffer. */
            for (i = source->count - 1; i >= 0; i--) {
                opened_iio[i] = &source->devices[i];
                iio_start(&source->devices[i], id);
            }
            source->period = 1 / *rate;
        }

        static long long iio_value(const iio_element *e, const unsigned char *scan) {
            unsigned long long bits = 0;
            int i;
            for (i = 0; i < e->bytes; i++) /* the most significant byte first */
                bits = bits << 8 | scan[e->offset + (e->big_endian ? i : e->bytes - 1 - i)];
            bits >>= e->shift;
            if (e->bits < 64) {
                bits &= (1ULL << e->bits) - 1;
                if (e->is_signed && (bits >> (e->bits - 1)) & 1) return (long long)(bits | ~((1ULL << e->bits) - 1));
            }
            return (long long)bits;
        }

        /* Raw counts as GestureLab converts them: (raw + offset) x scale, m/s^2 to g, then the kernel's mount matrix,
           which a profile's own mount matrix replaces. */
        static void iio_convert(const iio_device *device, const unsigned char *scan, int first, double *out) {
            double value[3];
            int i;
            for (i = 0; i < 3; i++) {
                value[i] = ((double)iio_value(&device->element[first + i], scan) + device->offset[first + i]) *
                           device->scale[first + i];
                if (first == ACCEL_X) value[i] /= 9.80665;
            }
            for (i = 0; i < 3; i++) {
                const double *row = device->mount[first / 3] + 3 * i;
                out[i] = device->mounted[first / 3] && !GESTURE_BOARD_OWN_MOUNTING
                             ? 0 + row[0] * value[0] + row[1] * value[1] + row[2] * value[2]
                             : value[i];
            }
        }

        /* The device's next scan, waiting up to `timeout` seconds: 1, or 0 if none came. */
        static int iio_next(iio_device *device, const char *id, double timeout, iio_scan *scan) {
            const unsigned char *bytes;
            size_t room = sizeof device->buffer / device->scan_bytes * device->scan_bytes;
            while (device->used >= device->buffered) {
                struct pollfd waiting;
                ssize_t count;
                waiting.fd = device->fd;
                waiting.events = POLLIN;
                waiting.revents = 0;
                if (stopping) return 0;
                if (poll(&waiting, 1, (int)ceil(timeout * 1000)) <= 0) {
                    /* A removed device's buffer just goes quiet; its sysfs folder is what disappears. */
                    if (access(device->folder, F_OK) != 0) errno = ENODEV;
                    else return 0;
                } else if (waiting.revents & (POLLERR | POLLHUP)) {
                    errno = ENODEV;
                } else if ((count = read(device->fd, device->buffer, room)) > 0) {
                    device->buffered = (int)count;
                    device->used = 0;
                    continue;
                } else if (count < 0 && (errno == EAGAIN || errno == EINTR)) {
                    continue;
                } else if (count == 0) {
                    errno = ENODEV;
                }
                fail(1, "%s: %s stopped delivering (%s); was it unplugged?", id, device->name, strerror(errno));
            }
            bytes = device->buffer + device->used;
            device->used += device->scan_bytes;
            scan->time = (double)iio_value(&device->element[TIMESTAMP], bytes) * 1e-9;
            if (device->has_accel && device->element[ACCEL_X].enabled) iio_convert(device, bytes, ACCEL_X, scan->values);
            if (device->element[ANGLVEL_X].enabled) iio_convert(device, bytes, ANGLVEL_X, scan->values + 3);
            return 1;
        }

        /* The queued gyroscope scan nearest to `time` within a period, once one at or after `time` has come (waiting a
           quarter of a second for it: until then, the nearest may be yet to come); it and those before it are used
           up. 0 when none is that near. */
        static int iio_partner(iio_source *source, const char *id, double time, double *rotation_rate) {
            double tolerance = source->period;
            int i, best = -1;
            for (;;) {
                int later = 0;
                for (i = 0; i < source->queued; i++) later = later || source->queue[i].time >= time;
                if (later || stopping) break;
                if (source->queued == 64) memmove(source->queue, source->queue + 1, --source->queued * sizeof(iio_scan));
                if (!iio_next(&source->devices[1], id, 0.25, &source->queue[source->queued])) break;
                source->queued++;
            }
            for (i = 0; i < source->queued && source->queue[i].time <= time + tolerance; i++)
                if (source->queue[i].time >= time - tolerance &&
                    (best < 0 || fabs(source->queue[i].time - time) < fabs(source->queue[best].time - time)))
                    best = i;
            if (best >= 0) memcpy(rotation_rate, source->queue[best].values + 3, 3 * sizeof(double));
            i = best >= 0 ? best + 1 : 0;
            while (i < source->queued && source->queue[i].time < time - tolerance) i++;
            memmove(source->queue, source->queue + i, (size_t)(source->queued - i) * sizeof(iio_scan));
            source->queued -= i;
            return best >= 0;
        }

        /* A scan's time on the monotonic clock: the kernel's stamp as it is; a sensor hub's own (more than a second off
           when the first scan arrived) on its device clock. */
        static double iio_time(iio_source *source, double stamp) {
            struct timespec now;
            double arrival;
            clock_gettime(CLOCK_MONOTONIC, &now);
            arrival = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
            if (source->clock == 0) source->clock = fabs(stamp - arrival) <= 1.0 ? 1 : 2;
            return source->clock == 1 ? stamp : device_clock_time(&source->hub, stamp, arrival);
        }

        /* The next reading: a scan of the one device, or an accelerometer scan with its gyroscope scan. One without a
           partner is skipped: before the first pair because the two buffers started apart, after it as lost. */
        static int read_iio(iio_source *source, const char *id, reading *r) {
            iio_scan scan;
            while (!stopping) {
                if (!iio_next(&source->devices[0], id, 0.1, &scan)) continue;
                memcpy(r->acceleration, scan.values, 3 * sizeof(double));
                if (source->count == 1) {
                    memcpy(r->rotation_rate, scan.values + 3, 3 * sizeof(double));
                    r->time = iio_time(source, scan.time);
                    return 1;
                }
                if (iio_partner(source, id, scan.time, r->rotation_rate)) {
                    source->paired = 1;
                    r->time = iio_time(source, scan.time);
                    return 1;
                }
                if (source->paired) source->lost++;
            }
            return 0;
        }

        /* ---- evdev ---- */

        static const int evdev_axes[6] = {ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ};

        static const char input_advice[] = "; add the user to the group 'input' (sudo usermod -aG input $USER) and log in again";

        typedef struct {
            int fd, state[6];
            char path[64], name[256];
            double scale[6], period;
            /* The device's MSC_TIMESTAMP (us, wrapping at 2^32): the us elapsed since its first frame, on its clock. */
            int stamped, counting;
            unsigned int stamp, last_stamp;
            unsigned long long elapsed;
            device_clock clock;
            /* Report on change onto the rate: a silence filled with the last frame, a faster device thinned. */
            reading frame, held;
            int has_frame, has_out, has_interval, has_due;
            double last_out, last_frame, interval, due;
            long dropped; /* SYN_DROPPED: the kernel's buffer overran */
            struct input_event events[64];
            int queued, next;
        } evdev_source;

        /* A name as GestureLab's device IDs spell it: letters and digits kept, anything else '_'. */
        static void evdev_id(const char *name, char *id, size_t size) {
            size_t i;
            for (i = 0; name[i] != '\0' && i + 1 < size; i++) {
                unsigned char c = (unsigned char)name[i];
                id[i] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 ? (char)c : '_';
            }
            id[i] = '\0';
        }

        static int evdev_has_axes(int fd) {
            unsigned char bits[ABS_MAX / 8 + 1];
            int i;
            memset(bits, 0, sizeof bits);
            if (ioctl(fd, EVIOCGBIT(EV_ABS, sizeof bits), bits) < 0) return 0;
            for (i = 0; i < 6; i++)
                if (!(bits[evdev_axes[i] / 8] & (1 << (evdev_axes[i] % 8)))) return 0;
            return 1;
        }

        /* `--evdev DEVICE`: a path, or the first /dev/input/eventN whose name (or GestureLab ID) it is. */
        static void evdev_open(evdev_source *source, const char *device, double rate) {
            const char *wanted = strncmp(device, "evdev:", 6) == 0 ? device + 6 : device;
            int i, denied = 0;
            source->fd = -1;
            if (device[0] == '/') {
                snprintf(source->path, sizeof source->path, "%s", device);
                if ((source->fd = open(device, O_RDONLY)) < 0)
                    fail(2, "%s: cannot open it: %s%s", device, strerror(errno), errno == EACCES ? input_advice : "");
            }
            for (i = 0; source->fd < 0 && i < 1024; i++) {
                char id[256];
                snprintf(source->path, sizeof source->path, "/dev/input/event%d", i);
                if ((source->fd = open(source->path, O_RDONLY)) < 0) {
                    denied += errno == EACCES;
                    continue;
                }
                if (ioctl(source->fd, EVIOCGNAME(sizeof source->name), source->name) < 0) source->name[0] = '\0';
                evdev_id(source->name, id, sizeof id);
                if (strcmp(source->name, wanted) == 0 || strcmp(id, wanted) == 0) break;
                close(source->fd);
                source->fd = -1;
            }
            if (source->fd < 0)
                fail(2, "%s: no input device of that name%s%s", device,
                     denied ? "; some of /dev/input/event* cannot be opened (Permission denied)" : "", denied ? input_advice : "");
            if (ioctl(source->fd, EVIOCGNAME(sizeof source->name), source->name) < 0) source->name[0] = '\0';
            if (!evdev_has_axes(source->fd))
                fail(2, "%s: %s (%s) has no ABS_X/Y/Z accelerometer and ABS_RX/RY/RZ gyroscope axes", device, source->path,
                     source->name);
            i = CLOCK_MONOTONIC;
            ioctl(source->fd, EVIOCSCLOCKID, &i);
            for (i = 0; i < 6; i++) {
                struct input_absinfo info;
                double resolution;
                memset(&info, 0, sizeof info);
                ioctl(source->fd, EVIOCGABS(evdev_axes[i]), &info);
                resolution = info.resolution > 1 ? info.resolution : 1;
                source->state[i] = info.value;
                source->scale[i] = i < 3 ? 1 / resolution : 3.141592653589793 / 180 / resolution;
            }
            source->period = 1 / rate;
        }

        static double evdev_device_time(evdev_source *source, double kernel) {
            if (source->counting) source->elapsed += (unsigned int)(source->stamp - source->last_stamp);
            source->counting = 1;
            source->last_stamp = source->stamp;
            return device_clock_time(&source->clock, (double)source->elapsed * 1e-6, kernel);
        }

        /* The next frame, delimited by SYN_REPORT; after a SYN_DROPPED the axes are read again. 0 when stopped. */
        static int evdev_frame(evdev_source *source, const char *device, reading *r) {
            int i, syncing = 0;
            while (!stopping) {
                struct input_event event;
                if (source->next == source->queued) {
                    ssize_t count = read(source->fd, source->events, sizeof source->events);
                    if (count < 0 && errno == EINTR) continue;
                    if (count < (ssize_t)sizeof event)
                        fail(1, "%s: %s stopped delivering (%s); was it unplugged?", device, source->path,
                             count < 0 ? strerror(errno) : "short read");
                    source->queued = (int)(count / (ssize_t)sizeof event);
                    source->next = 0;
                }
                event = source->events[source->next++];
                if (event.type == EV_SYN && event.code == SYN_DROPPED) {
                    source->dropped++;
                    syncing = 1;
                } else if (syncing) {
                    if (event.type != EV_SYN || event.code != SYN_REPORT) continue;
                    syncing = 0;
                    for (i = 0; i < 6; i++) {
                        struct input_absinfo info;
                        if (ioctl(source->fd, EVIOCGABS(evdev_axes[i]), &info) == 0) source->state[i] = info.value;
                    }
                    source->stamped = 0;
                } else if (event.type == EV_ABS) {
                    for (i = 0; i < 6; i++)
                        if (event.code == evdev_axes[i]) source->state[i] = event.value;
                } else if (event.type == EV_MSC && event.code == MSC_TIMESTAMP) {
                    source->stamp = (unsigned int)event.value;
                    source->stamped = 1;
                } else if (event.type == EV_SYN && event.code == SYN_REPORT) {
                    double kernel = (double)event.input_event_sec + (double)event.input_event_usec * 1e-6;
                    r->time = source->stamped ? evdev_device_time(source, kernel) : kernel;
                    source->stamped = 0;
                    for (i = 0; i < 3; i++) {
                        r->acceleration[i] = (double)source->state[i] * source->scale[i];
                        r->rotation_rate[i] = (double)source->state[i + 3] * source->scale[i + 3];
                    }
                    return 1;
                }
            }
            return 0;
        }

        /* The next reading at the rate, as GestureLab's ReportOnChangeResampler gives them. */
        static int read_evdev(evdev_source *source, const char *device, reading *r) {
            double period = source->period;
            for (;;) {
                reading frame;
                if (!source->has_frame) {
                    if (!evdev_frame(source, device, &source->frame)) return 0;
                    source->has_frame = 1;
                }
                frame = source->frame;
                if (source->has_out && frame.time - source->last_out > 1.5 * period) {
                    *r = source->held;
                    r->time = source->last_out += period;
                    return 1;
                }
                source->has_frame = 0;
                if (source->has_out) {
                    double gap = frame.time - source->last_frame;
                    source->interval = source->has_interval ? 0.8 * source->interval + 0.2 * gap : gap;
                    source->has_interval = 1;
                }
                source->last_frame = frame.time;
                source->held = frame;
                if (source->has_out && frame.time <= source->last_out) continue;
                if (source->has_interval && source->interval < 0.8 * period) {
                    double tick = source->has_due ? source->due : frame.time;
                    if (frame.time < tick - period / 2) continue;
                    source->due = (tick > frame.time - period / 2 ? tick : frame.time - period / 2) + period;
                    source->has_due = 1;
                } else {
                    source->has_due = 0;
                }
                *r = frame;
                source->last_out = frame.time;
                source->has_out = 1;
                return 1;
            }
        }

        #endif

        /* ---- detections ---- */

        /* `value` rounded half away from zero to `digits` decimals, as GestureLab prints it. */
        static void print_fixed(double value, int digits, int width) {
            char text[64];
            double scale = digits == 3 ? 1000 : 100, units = floor(fabs(value) * scale + 0.5);
            sprintf(text, "%s%.0f.%0*.0f", value < 0 && units > 0 ? "-" : "", floor(units / scale), digits,
                    fmod(units, scale));
            printf("%*s", width, text);
        }

        static void print_detection(const gesture_prediction *p, double first) {
            int i, second = p->gesture == 0 && GESTURE_CLASSES > 1 ? 1 : 0;
            for (i = 0; i < GESTURE_CLASSES; i++)
                if (i != p->gesture && p->probabilities[i] > p->probabilities[second]) second = i;
            print_fixed(p->time - first, 2, 8);
            printf(" s  %s  ", gesture_class_names[p->gesture]);
            print_fixed(p->probability, 3, 0);
            printf("  (runner-up %s ", gesture_class_names[second]);
            print_fixed(p->probabilities[second], 3, 0);
            printf(")\n");
            fflush(stdout);
        }

        static void usage(void) {
            fail(2, "usage: gesture_detect [--iio NAME[+NAME] | --evdev DEVICE] [--rate HZ] [--count N] [--readings FILE] "
                    "(no device: CSV on standard input)");
        }

        static double number_argument(const char *option, const char *text) {
            char *end;
            double value = strtod(text, &end);
            if (end == text || *end != '\0' || !(value > 0)) fail(2, "%s %s is not a positive number", option, text);
            return value;
        }

        int main(int argc, char **argv) {
            static gesture_board board;
            const char *iio = NULL, *evdev = NULL, *readings_path = NULL;
            double rate = GESTURE_BOARD_RATE, first = 0;
            long count = 0, readings = 0;
            int i, rate_given = 0;
            FILE *readings_file = NULL;
            reading r = {0, {0, 0, 0}, {0, 0, 0}};
            struct sigaction action;
        #ifdef __linux__
            static iio_source iio_device_source;
            static evdev_source evdev_device_source;
        #endif
            for (i = 1; i < argc; i++) {
                const char *value = i + 1 < argc ? argv[i + 1] : NULL;
                if (value != NULL && strcmp(argv[i], "--iio") == 0) iio = argv[++i];
                else if (value != NULL && strcmp(argv[i], "--evdev") == 0) evdev = argv[++i];
                else if (value != NULL && strcmp(argv[i], "--count") == 0) count = (long)number_argument(argv[i++], value);
                else if (value != NULL && strcmp(argv[i], "--readings") == 0) readings_path = argv[++i];
                else if (value != NULL && strcmp(argv[i], "--rate") == 0 && !rate_given) {
                    rate = number_argument(argv[i++], value);
                    rate_given = 1;
                } else if (argv[i][0] != '-' && !rate_given) {
                    rate = number_argument("RATE", argv[i]);
                    rate_given = 1;
                } else {
                    usage();
                }
            }
            if (iio != NULL && evdev != NULL) usage();
        #ifndef __linux__
            if (iio != NULL || evdev != NULL) fail(2, "--iio and --evdev read Linux devices");
        #endif
            memset(&action, 0, sizeof action);
            action.sa_handler = stop; /* no SA_RESTART: a blocked read returns, and the program ends cleanly */
            sigaction(SIGINT, &action, NULL);
            sigaction(SIGTERM, &action, NULL);
            if (readings_path != NULL && (readings_file = fopen(readings_path, "w")) == NULL)
                fail(2, "--readings %s: %s", readings_path, strerror(errno));
        #ifdef __linux__
            atexit(release_iio);
            if (iio != NULL) iio_open(&iio_device_source, iio, &rate);
            if (evdev != NULL) evdev_open(&evdev_device_source, evdev, rate);
        #endif
            if (!gesture_board_init(&board, rate))
                fail(2, "%s %g Hz is not a whole multiple of the model's %g Hz",
                     iio != NULL ? iio : rate_given ? "RATE" : "GESTURE_BOARD_RATE", rate, (double)GESTURE_RATE);
            if (readings_file != NULL) fprintf(readings_file, "time,ax,ay,az,gx,gy,gz\n");
            while (count == 0 || readings < count) {
                gesture_prediction p;
                int got;
        #ifdef __linux__
                got = iio != NULL     ? read_iio(&iio_device_source, iio, &r)
                      : evdev != NULL ? read_evdev(&evdev_device_source, evdev, &r)
                                      : read_csv(&r);
        #else
                got = read_csv(&r);
        #endif
                if (!got) break;
                if (readings++ == 0) first = r.time;
                if (readings_file != NULL) {
                    fprintf(readings_file, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", r.time, r.acceleration[0],
                            r.acceleration[1], r.acceleration[2], r.rotation_rate[0], r.rotation_rate[1], r.rotation_rate[2]);
                }
                if (gesture_board_add(&board, r.time, r.acceleration, r.rotation_rate, &p) && p.detected)
                    print_detection(&p, first);
            }
            if (readings_file != NULL) fclose(readings_file);
        #ifdef __linux__
            if (evdev_device_source.dropped > 0)
                fprintf(stderr, "gesture_detect: %s: readings lost %ld times: not read in time\n", evdev,
                        evdev_device_source.dropped);
            if (iio_device_source.lost > 0)
                fprintf(stderr, "gesture_detect: %s: %ld readings lost: no gyroscope scan near them\n", iio,
                        iio_device_source.lost);
        #endif
            return 0;
        }
        """#
}
