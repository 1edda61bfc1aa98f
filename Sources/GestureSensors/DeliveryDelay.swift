/// How late a device's readings may arrive after their own time and still be used: more than
/// the delivery delays of input devices (USB and Bluetooth batch frames for tens of ms) and of a
/// busy machine. Waiting for a reading that may still come never takes longer than this.
public enum DeliveryDelay {
    public static let allowance = 0.25
    /// A phone's page streams its readings over Wi-Fi in batches, from a browser whose timers a busy
    /// phone or laptop runs late: a batch a few hundred ms late is common, and still on time here.
    public static let overNetwork = 1.0
}
