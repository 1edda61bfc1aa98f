# InvenSense MPU-6050 (and MPU-6000/9150) through IIO's inv_mpu6050 driver, e.g. on a
# Raspberry Pi's I2C bus with the devicetree overlay "mpu6050". The driver reports the mounting
# from the devicetree; set mount-matrix here only if yours is wrong.
name = MPU-6050 through IIO (inv_mpu6050)
match = iio:mpu6050* iio:mpu6000* iio:mpu9150*
axes = x y z
rate = 100
