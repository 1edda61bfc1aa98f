import Foundation

/// Excerpts of real recordings kept in the repository (Tests/Fixtures, with their sources and licences).
public enum Fixtures {
    public static let folder = Repository.path("Tests/Fixtures")

    /// Five recordings of the seglearn watch dataset, 250 samples each at 50 Hz.
    public static let seglearnWatch = "\(folder)/seglearn-watch-subset.csv"
    /// Sixteen cases of BasicMotions, two of each activity in each split, 100 samples each at 10 Hz.
    public static let basicMotions = "\(folder)/basic-motions-subset.csv"

    public static let seglearnWatchMapping =
        "user=subject,session=recording,label=exercise,accelX=ax,accelY=ay,accelZ=az,gyroX=wx,gyroY=wy,gyroZ=wz"
    public static let basicMotionsMapping =
        "session=case,label=activity,accelX=ax,accelY=ay,accelZ=az,gyroX=gx,gyroY=gy,gyroZ=gz"
}
