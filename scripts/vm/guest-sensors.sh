# Runs inside the VM (scripts/vm/run): makes real sensor devices that send a made-up motion,
# records from them with the host-built gesture, and leaves everything in .cache/vm/out. Every wait
# is for a state; the VM's own time limit is the only one.
set -euo pipefail
bin=$(cat .cache/vm/bin)
out=.cache/vm/out
rm -rf "$out" && mkdir -p "$out"
kernel=$(sed -n 's/.*gesture.kernel=\([^ ]*\).*/\1/p' /proc/cmdline)
load() { /usr/sbin/modprobe -d "$kernel" -S "$(uname -r)" "$@"; }
for module in evdev uinput uhid hid-sensor-hub hid-sensor-accel-3d hid-sensor-gyro-3d; do load "$module"; done

wait_for() { until [ -e "$1" ]; do sleep 0.1; done; }
record() { # DEVICE USER: one take at 50 Hz into $out/recordings
  "$bin/gesture" record --device "$1" --user "$2" --gesture shake --takes 1 --take 3 --rest 1 \
    --rate 50 --quiet --keep --recordings "$out/recordings"
}
denied() { # DEVICE NAME NODE…: record with the device nodes owned by another user, as a user
  # who may not bypass file permissions (root without capabilities: the libraries stay readable)
  chown 1000:1000 "${@:3}" && chmod 600 "${@:3}"
  set +e
  setpriv --inh-caps=-all --bounding-set=-all "$bin/gesture" record --device "$1" --user denied \
    --gesture shake --takes 1 --quiet --keep --recordings "$out/denied" > "$out/$2-denied.log" 2>&1
  echo $? > "$out/$2-denied.status"
  set -e
  chown 0:0 "${@:3}"
}
inject() { # INJECTOR NAME [OPTIONS]: send the motion at 50 Hz until $out/NAME.stop exists
  "$bin/gesture-devicetest" "$1" --rate 50 \
    --injected "$out/$2-injected.csv" --ready-file "$out/$2.ready" --stop-file "$out/$2.stop" "${@:3}" &
  injector=$!
  wait_for "$out/$2.ready"
}

detect() { # KIND OPTION DEVICE INJECTOR [OPTIONS]: the exported C detector reads 400 readings (8 s)
  # while the injector sends its motion
  inject "$4" "$1-detect" "${@:5}"
  set +e
  .cache/vm/detect/c/gesture_detect "$2" "$3" --rate 50 --count 400 --readings "$out/$1-detect-readings.csv" \
    > "$out/$1-detect.txt" 2> "$out/$1-detect.log"
  echo $? > "$out/$1-detect.status"
  set -e
  touch "$out/$1-detect.stop" && wait "$injector"
}
detect_error() { # NAME OPTION DEVICE [NODE…]: gesture_detect as a user without access to the nodes
  [ $# -gt 3 ] && chown 1000:1000 "${@:4}" && chmod 600 "${@:4}"
  set +e
  setpriv --inh-caps=-all --bounding-set=-all .cache/vm/detect/c/gesture_detect "$2" "$3" --count 1 \
    > /dev/null 2> "$out/detect-$1.log"
  echo $? > "$out/detect-$1.status"
  set -e
  [ $# -gt 3 ] && chown 0:0 "${@:4}"
  return 0
}

# evdev: a uinput accelerometer + gyroscope, silent for a second after 6 s, as a device holding still.
inject uinput evdev --silence-after 300
"$bin/gesture" devices --json > "$out/devices.json"
record evdev:GestureLab_VM_IMU vmevdev > "$out/evdev-record.log" 2>&1
denied evdev:GestureLab_VM_IMU evdev /dev/input/event*
"$bin/gesture" monitor --device evdev:GestureLab_VM_IMU --rate 50 --seconds 2 > "$out/evdev-monitor.log" 2>&1
# Without --device, the one real sensor there is.
"$bin/gesture" record --user vmauto --gesture shake --takes 1 --take 1 --rest 1 --rate 50 --quiet --keep \
  --recordings "$out/recordings" > "$out/auto-record.log" 2>&1
echo $? > "$out/auto-record.status"
touch "$out/evdev.stop" && wait "$injector"

# The exported C detector on the input device, by its name, through a silence after 2 s.
detect evdev --evdev GestureLab_VM_IMU uinput --silence-after 100
inject uinput evdev-denied
detect_error evdev-denied --evdev GestureLab_VM_IMU /dev/input/event*
touch "$out/evdev-denied.stop" && wait "$injector"

# IIO: a HID sensor hub through uhid; the kernel's hid-sensor drivers make accel_3d and gyro_3d.
inject sensorhub iio
"$bin/gesture" devices --json > "$out/devices-iio.json"
record iio:accel_3d+gyro_3d vmiio > "$out/iio-record.log" 2>&1
denied iio:accel_3d+gyro_3d iio /dev/iio:device*
"$bin/gesture" monitor --device iio:accel_3d+gyro_3d --rate 50 --seconds 2 > "$out/iio-monitor.log" 2>&1
touch "$out/iio.stop" && wait "$injector"
detect iio --iio accel_3d+gyro_3d sensorhub
inject sensorhub iio-errors
detect_error unknown --iio nothing_3d
detect_error no-gyroscope --iio accel_3d
detect_error iio-denied --iio accel_3d+gyro_3d /dev/iio:device*
touch "$out/iio-errors.stop" && wait "$injector"

# Unplugged mid-take: each device disappears once its take has rows on disk.
unplug() { # KIND INJECTOR DEVICE USER
  inject "$2" "$1-unplug"
  record "$3" "$4" > "$out/$1-unplug-record.log" 2>&1 &
  local recorder=$!
  while kill -0 "$recorder" 2>/dev/null && [ "$(cat "$out/recordings/$4-recordings.csv" 2>/dev/null | wc -l)" -le 60 ]; do
    sleep 0.1
  done
  touch "$out/$1-unplug.stop"
  set +e
  wait "$recorder"
  echo $? > "$out/$1-unplug.status"
  set -e
  wait "$injector"
}
unplug evdev uinput evdev:GestureLab_VM_IMU vmunplug
unplug iio sensorhub iio:accel_3d+gyro_3d vmiiounplug
echo "guest done"
