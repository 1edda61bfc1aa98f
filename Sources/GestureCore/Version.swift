/// GestureLab's version, as `gesture --version` prints it: raised with each release, by hand.
public let gestureLabVersion = "0.1.0"
