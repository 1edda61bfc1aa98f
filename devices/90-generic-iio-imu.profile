# Any other IIO accelerometer and gyroscope (st_lsm6dsx, bmi270, icm42600, …): the kernel's scale,
# offset and mount matrix as they are.
name = Generic IIO IMU
match = iio:*
axes = x y z
rate = 100
