# A laptop's or convertible's HID accelerometer with no gyroscope (accel_3d alone): rotation
# rates are recorded as zero, so train on the acceleration and gravity features only.
# Laptops mount it in the lid or the base; if "gesture record" shows gravity on the wrong axis with
# the laptop open on a table, remap here, e.g. axes = x -z y.
name = Laptop accelerometer (accel_3d, no gyroscope)
match = iio:accel_3d
axes = x y z
rate = 50
