# Bosch BMI160 through IIO's bmi160 driver (I2C or SPI). Output data rates are powers of two
# times 25 Hz; the recorder picks the nearest to the rate asked for.
name = BMI160 through IIO (bmi160)
match = iio:bmi160*
axes = x y z
rate = 100
