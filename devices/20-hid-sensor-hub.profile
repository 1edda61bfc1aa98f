# A HID sensor hub's accelerometer and gyrometer (tablets, 2-in-1 laptops, phones' sensor hubs),
# through the hid-sensor-accel-3d and hid-sensor-gyro-3d drivers: two IIO devices, read together.
name = HID sensor hub accelerometer + gyrometer (accel_3d + gyro_3d)
match = iio:accel_3d+gyro_3d*
axes = x y z
rate = 50
