# Runs inside the VM (scripts/vm/run): makes real sensor devices that replay recorded motion,
# records from them with the host-built gesture, and leaves everything in .cache/vm/out.
set -euo pipefail
bin=.build/debug
out=.cache/vm/out
rm -rf "$out" && mkdir -p "$out"
kernel=$(sed -n 's/.*gesture.kernel=\([^ ]*\).*/\1/p' /proc/cmdline)
load() { /usr/sbin/modprobe -d "$kernel" -S "$(uname -r)" "$@"; }
load evdev
load uinput

wait_for() { for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done; echo "timed out waiting for $1"; return 1; }
record() { # DEVICE USER: one 5 s take at 50 Hz into $out/recordings
  "$bin/gesture" record --device "$1" --user "$2" --gesture shake --takes 1 --take 3 --rest 1 \
    --rate 50 --quiet --keep --recordings "$out/recordings"
}

# evdev: a uinput accelerometer + gyroscope replaying 20 s of a real watch recording.
"$bin/gesture-devicetest" uinput --data .cache/vm/motion.csv --rate 50 --frames 1000 \
  --injected "$out/evdev-injected.csv" --ready-file "$out/evdev.ready" &
injector=$!
wait_for "$out/evdev.ready"

"$bin/gesture" devices --json > "$out/devices.json"
record evdev:GestureLab_VM_IMU vmevdev > "$out/evdev-record.log" 2>&1
wait "$injector"

# evdev unplugged mid-take: the device disappears 7 s after it appeared, during the take.
"$bin/gesture-devicetest" uinput --data .cache/vm/motion.csv --rate 50 --frames 1000 --destroy-after 350 \
  --injected "$out/unplug-injected.csv" --ready-file "$out/unplug.ready" &
injector=$!
wait_for "$out/unplug.ready"
set +e
record evdev:GestureLab_VM_IMU vmunplug > "$out/unplug-record.log" 2>&1
echo $? > "$out/unplug.status"
set -e
wait "$injector"
echo "guest done"
