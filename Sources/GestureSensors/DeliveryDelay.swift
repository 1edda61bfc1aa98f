/// How late a device's readings may arrive after their own time and still be used: more than
/// the delivery delays of input devices (USB and Bluetooth batch frames for tens of ms) and of a
/// busy machine. Waiting for a reading that may still come never takes longer than this.
enum DeliveryDelay {
    static let allowance = 0.25
}
