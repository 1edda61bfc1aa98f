import GestureCore

extension CLibrary {
    /// The sensor the library reads: how its axes become GestureLab's, as a device profile says
    /// (devices/NAME.profile), and the rate it runs at unless the caller says otherwise.
    public struct Board: Sendable {
        /// The profile's file and name, for the header; "none" when there is none: GestureLab's axes.
        public var name: String
        /// Applied first, rows first: the profile's mount matrix, the identity without one.
        public var mountMatrix: [[Double]]
        /// Whether the profile gives a mount matrix, which replaces the one the kernel reports.
        public var replacesKernelMounting: Bool
        /// For each of GestureLab's axes, the sensor axis it takes (0, 1, 2) and the sign.
        public var axes: [(axis: Int, sign: Double)]
        public var accelerationScale: Double
        public var rotationScale: Double
        /// Readings a second the detector expects by default.
        public var rate: Double

        public init(
            name: String, mountMatrix: [[Double]]? = nil, axes: [(axis: Int, sign: Double)] = [(0, 1), (1, 1), (2, 1)],
            accelerationScale: Double = 1, rotationScale: Double = 1, rate: Double
        ) {
            self.name = name
            self.mountMatrix = mountMatrix ?? [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
            replacesKernelMounting = mountMatrix != nil
            self.axes = axes
            self.accelerationScale = accelerationScale
            self.rotationScale = rotationScale
            self.rate = rate
        }
    }

    /// What `gesture_detect.c` is called, and the Makefile that builds it.
    public static let detectProgramName = "gesture_detect.c"
    public static let makefileName = "Makefile"

    /// Each feature as the front end computes it: its place in GestureLab's features, or nil for
    /// one GestureLab does not compute, which leaves the library features-only.
    var featureCodes: [Int]? {
        let known = Feature.all + Feature.orientationFree
        let codes = model.featureNames.compactMap { name in
            (try? Feature(named: name)).flatMap { known.firstIndex(of: $0) }
        }
        return codes.count == model.featureNames.count ? codes : nil
    }

    /// The front end's declarations in the header: the reader of raw readings.
    var boardDeclarations: String {
        guard featureCodes != nil else { return "" }
        return """

            /* Raw readings in: the profile's axis mapping, GestureLab's attitude filter and features, every
               reading in GESTURE_RATE's multiple taken, then the detector. \(board.name.cLiteral) axes. */
            #define GESTURE_BOARD_RATE \(board.rate.cLiteral)
            /* 1 when the profile's mount matrix replaces the one a Linux driver reports (gesture_detect.c
               applies the driver's otherwise, as GestureLab does). */
            #define GESTURE_BOARD_OWN_MOUNTING \(board.replacesKernelMounting ? 1 : 0)

            typedef struct {
                gesture_detector detector;
                double orientation[4]; /* w, x, y, z: body to world */
                double last_time;
                int fused;             /* 0 until the first reading */
                int keep_every;
                long readings;
            } gesture_board;

            /* Starts a board read at `rate` readings a second (GESTURE_BOARD_RATE, or the sensor's own):
               returns 0, and is not started, unless the rate is a whole multiple of GESTURE_RATE within 2 %. */
            int gesture_board_init(gesture_board *board, double rate);

            /* One reading at `time` seconds: acceleration in g, gravity included, and rotation rate in rad/s,
               on the sensor's axes. Returns 1 and fills `features` (GESTURE_FEATURES) when the model takes it. */
            int gesture_board_features(gesture_board *board, double time, const double acceleration[3],
                                       const double rotation_rate[3], float *features);

            /* As gesture_board_features, then the detector: returns 1 and fills `prediction` when the reading
               completes a window. */
            int gesture_board_add(gesture_board *board, double time, const double acceleration[3],
                                  const double rotation_rate[3], gesture_prediction *prediction);

            """
    }

    /// The front end in C: the profile's mapping, the attitude filter and the features, in double as
    /// GestureLab computes them, each feature a float at the end as GestureLab's are.
    var boardSource: String {
        guard let featureCodes else { return "" }
        let matrix = board.mountMatrix.flatMap { $0 }.map(\.cLiteral).joined(separator: ", ")
        return """

            static const double board_mount[9] = {\(matrix)};
            static const int board_axes[3] = {\(board.axes.map { "\($0.axis)" }.joined(separator: ", "))};
            static const double board_signs[3] = {\(board.axes.map(\.sign.cLiteral).joined(separator: ", "))};
            static const double board_scales[2] = {\(board.accelerationScale.cLiteral), \(board.rotationScale.cLiteral)};
            static const unsigned char feature_codes[GESTURE_FEATURES] = {\(featureCodes.map(String.init).joined(separator: ", "))};
            \(CBoardTemplates.frontEnd)
            """
    }

    /// `gesture_detect.c`: raw readings from an IIO or input device, or as CSV on standard input,
    /// detections out as `gesture detect` prints them.
    public var detectProgram: String? { featureCodes.map { _ in CDetectProgram.source } }

    public var makefile: String { CBoardTemplates.makefile }
}

extension Double {
    /// A C literal that reads back as exactly this double.
    var cLiteral: String { "\(self)" }
}

/// The parts of the front end's C that do not depend on the model or the profile.
enum CBoardTemplates {
    static let frontEnd = """
        typedef struct {
            double w, x, y, z;
        } quaternion;

        static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

        static void cross(const double *a, const double *b, double *out) {
            out[0] = a[1] * b[2] - a[2] * b[1];
            out[1] = a[2] * b[0] - a[0] * b[2];
            out[2] = a[0] * b[1] - a[1] * b[0];
        }

        static quaternion multiply(quaternion a, quaternion b) {
            const double u[3] = {a.x, a.y, a.z}, v[3] = {b.x, b.y, b.z};
            double c[3];
            quaternion q;
            cross(u, v, c);
            q.w = a.w * b.w - dot(u, v);
            q.x = a.w * v[0] + b.w * u[0] + c[0];
            q.y = a.w * v[1] + b.w * u[1] + c[1];
            q.z = a.w * v[2] + b.w * u[2] + c[2];
            return q;
        }

        /* The rotation by `angle` about the unit `axis`. */
        static quaternion about(const double *axis, double angle) {
            quaternion q;
            double s = sin(angle / 2);
            q.w = cos(angle / 2);
            q.x = axis[0] * s;
            q.y = axis[1] * s;
            q.z = axis[2] * s;
            return q;
        }

        /* The rotation a body turning at `rate` (rad/s, body axes) makes in `seconds`. */
        static quaternion turn(const double *rate, double seconds) {
            double speed = sqrt(dot(rate, rate)), axis[3];
            quaternion identity = {1, 0, 0, 0};
            if (!(speed > 0)) return identity;
            axis[0] = rate[0] / speed;
            axis[1] = rate[1] / speed;
            axis[2] = rate[2] / speed;
            return about(axis, speed * seconds);
        }

        static quaternion normalized(quaternion q) {
            double length = sqrt(q.w * q.w + (q.x * q.x + q.y * q.y + q.z * q.z));
            q.w /= length;
            q.x /= length;
            q.y /= length;
            q.z /= length;
            return q;
        }

        /* World up, (0, 0, 1), in body coordinates: gravity as the body sees it. */
        static void up(quaternion q, double *out) {
            const double v[3] = {-q.x, -q.y, -q.z}, z[3] = {0, 0, 1};
            double t[3], c[3];
            int i;
            cross(v, z, t);
            for (i = 0; i < 3; i++) t[i] *= 2;
            cross(v, t, c);
            for (i = 0; i < 3; i++) out[i] = z[i] + q.w * t[i] + c[i];
        }

        /* The orientation with zero yaw whose gravity points along `a`. */
        static quaternion level(const double *a) {
            const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
            double roll = atan2(a[1], a[2]), pitch = atan2(-a[0], sqrt(a[1] * a[1] + a[2] * a[2]));
            return multiply(multiply(about(z, 0), about(y, pitch)), about(x, roll));
        }

        /* AttitudeFilter's defaults: how fast (1/s) gravity follows the accelerometer, and how far (g) the
           acceleration's magnitude may stray from 1 g before it is ignored. */
        static const double attitude_gain = 1.0, attitude_tolerance = 0.15;

        /* GestureLab's attitude filter: the gyroscope integrated, gravity pulled toward the accelerometer
           while the device is not accelerating. */
        static void fuse(gesture_board *board, double time, const double *a, const double *rate) {
            quaternion q = {board->orientation[0], board->orientation[1], board->orientation[2], board->orientation[3]};
            double magnitude = sqrt(dot(a, a));
            if (!board->fused) {
                quaternion identity = {1, 0, 0, 0};
                q = magnitude > 0 ? level(a) : identity;
            } else {
                double dt = time - board->last_time > 0 ? time - board->last_time : 0;
                double trust = 1 - fabs(magnitude - 1) / attitude_tolerance, gravity[3], unit[3], correction[3];
                quaternion turned = multiply(q, turn(rate, dt));
                int i;
                if (trust > 0) {
                    up(turned, gravity);
                    for (i = 0; i < 3; i++) unit[i] = a[i] / magnitude;
                    cross(unit, gravity, correction);
                    for (i = 0; i < 3; i++) correction[i] *= attitude_gain * trust;
                    turned = multiply(turned, turn(correction, dt));
                }
                q = normalized(turned);
            }
            board->orientation[0] = q.w;
            board->orientation[1] = q.x;
            board->orientation[2] = q.y;
            board->orientation[3] = q.z;
            board->last_time = time;
            board->fused = 1;
        }

        /* A sensor vector on GestureLab's axes: mounting, then axes, then scale. */
        static void map_axes(const double *v, double scale, double *out) {
            double mounted[3];
            int i;
            for (i = 0; i < 3; i++) mounted[i] = dot(board_mount + 3 * i, v);
            for (i = 0; i < 3; i++) out[i] = mounted[board_axes[i]] * board_signs[i] * scale;
        }

        /* Feature 18 + part: the size of the user acceleration (even parts) or rotation rate (odd), its part
           along gravity, and across it. */
        static double orientation_free(int part, const double *gravity, const double *user, const double *rate) {
            const double *vector = part % 2 == 0 ? user : rate;
            double length = sqrt(dot(gravity, gravity)), down[3] = {0, 0, -1}, vertical, size;
            int i;
            if (length > 0)
                for (i = 0; i < 3; i++) down[i] = gravity[i] / length;
            vertical = dot(vector, down);
            size = dot(vector, vector);
            if (part / 2 == 0) return sqrt(size);
            if (part / 2 == 1) return vertical;
            return sqrt(size - vertical * vertical > 0 ? size - vertical * vertical : 0);
        }

        static double feature(int code, quaternion q, const double *gravity, const double *user, const double *a,
                              const double *rate) {
            switch (code) {
            case 0: return atan2(2 * (q.w * q.x + q.y * q.z), 1 - 2 * (q.x * q.x + q.y * q.y));
            case 1: {
                double s = 2 * (q.w * q.y - q.z * q.x);
                return asin(s > 1 ? 1 : s < -1 ? -1 : s);
            }
            case 2: return atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z));
            case 3: case 4: case 5: return rate[code - 3];
            case 6: case 7: case 8: return gravity[code - 6];
            case 9: case 10: case 11: return user[code - 9];
            case 12: case 13: case 14: return a[code - 12];
            case 15: case 16: case 17: return rate[code - 15];
            default: return orientation_free(code - 18, gravity, user, rate);
            }
        }

        int gesture_board_init(gesture_board *board, double rate) {
            double ratio = rate / GESTURE_RATE, whole = floor(ratio + 0.5);
            if (!(whole >= 1) || fabs(ratio - whole) > 0.02 * whole) return 0;
            memset(board, 0, sizeof *board);
            gesture_detector_init(&board->detector);
            board->orientation[0] = 1;
            board->keep_every = (int)whole;
            return 1;
        }

        int gesture_board_features(gesture_board *board, double time, const double acceleration[3],
                                   const double rotation_rate[3], float *features) {
            double a[3], rate[3], gravity[3], user[3];
            quaternion q;
            int i;
            map_axes(acceleration, board_scales[0], a);
            map_axes(rotation_rate, board_scales[1], rate);
            fuse(board, time, a, rate);
            if (++board->readings % board->keep_every != 0) return 0;
            q.w = board->orientation[0];
            q.x = board->orientation[1];
            q.y = board->orientation[2];
            q.z = board->orientation[3];
            up(q, gravity);
            for (i = 0; i < 3; i++) user[i] = a[i] - gravity[i];
            for (i = 0; i < GESTURE_FEATURES; i++) features[i] = (float)feature(feature_codes[i], q, gravity, user, a, rate);
            return 1;
        }

        int gesture_board_add(gesture_board *board, double time, const double acceleration[3],
                              const double rotation_rate[3], gesture_prediction *prediction) {
            float features[GESTURE_FEATURES];
            return gesture_board_features(board, time, acceleration, rotation_rate, features) &&
                   gesture_detector_add_features(&board->detector, features, time, prediction);
        }
        """

    static let makefile = """
        # Builds gesture_detect: `make`, or for a Raspberry Pi from a PC, `make CC=aarch64-linux-gnu-gcc`
        # (add LDFLAGS=-static to copy it to a board without matching libraries). Run it on the sensor:
        #   ./gesture_detect --iio mpu6050              an IIO device (NAME+NAME: an accelerometer and a gyroscope)
        #   ./gesture_detect --evdev /dev/input/event5  an input device, by path or name
        #   ./gesture_detect < readings.csv             time,ax,ay,az,gx,gy,gz lines (g, rad/s)
        # gesture_detect.c's opening comment has the options. Without make:
        #   cc -std=c99 -O2 -o gesture_detect gesture_detect.c gesture_model.c -lm
        CFLAGS = -std=c99 -O2

        gesture_detect: gesture_detect.c gesture_model.c gesture_model.h
        \t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ gesture_detect.c gesture_model.c -lm

        """
}
