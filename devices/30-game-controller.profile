# A game controller's motion-sensor input node (Sony DualShock 4 / DualSense "Motion Sensors",
# Nintendo Switch controllers' "IMU"): accelerometer on ABS_X/Y/Z, gyroscope on ABS_RX/RY/RZ.
# The controller sends frames at its own rate (about 250 Hz over USB); each frame is a sample.
name = Game controller motion sensors (evdev)
match = evdev:*Motion_Sensors* evdev:*IMU*
axes = x y z
rate = 250
