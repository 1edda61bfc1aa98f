import GestureAnalysis
import GestureLearning
import GestureTestSupport
import Testing

@testable import GestureTraining

@Suite struct TrainingRecipeTests {
    /// Three people's twists and waves at 50 Hz, 24 sessions of one chunk each.
    private let watch = Dataset(sessions: (try? syntheticDataset()) ?? [])

    @Test func aSmallDatasetGetsTheWholeRecipeWithSmallerBatches() {
        let recipe = TrainingRecipe(for: watch)
        #expect(recipe.features == TrainingRecipe.featuresWithGravity)
        #expect(recipe.window == 20)
        #expect(recipe.augmentations == [.mirror, .rotate, .rotate, .warp, .warp])
        #expect(recipe.epochs == 10)
        // 24 chunks and their 120 copies make 1,440 chunks in 10 epochs: batches of 4 for 360 steps.
        #expect(recipe.batchSize == 4)
        #expect(
            recipe.choices == [
                "window 20 (0.4 s at 50 Hz)",
                "features rotX rotY rotZ gravX gravY gravZ accelX accelY accelZ",
                "copies mirror rotate rotate warp warp", "10 epochs", "the weights of the last 5 epochs averaged",
                "batches of 4",
            ])
        #expect(recipe.averagedEpochs == 5)
        #expect(TrainingRecipe(for: watch, epochs: 30).averagedEpochs == 15, "the last half")
        #expect(TrainingRecipe(for: watch, epochs: 3).averagedEpochs == 0, "not the mean of the last one")
        let kept = TrainingRecipe(for: watch, averagedEpochs: 0)
        #expect(kept.averagedEpochs == 0 && !kept.choicesText.contains("averaged"))
        #expect(TrainingRecipe.firstDefaults(for: watch).averagedEpochs == 0)
        #expect(recipe.randomConvolutions == nil, "gestures of 4 s are shorter than two histories")
        #expect(recipe.labelSmoothing == 0)
        #expect(recipe.choicesText.hasSuffix("batches of 4; --augment none trains the quickest model"))
    }

    /// Exercises held 12 s: random convolutions beside the network, unless the quickest model is asked for.
    @Test func motionHeldLongGetsRandomConvolutionsBesideTheNetwork() throws {
        let exercises = Dataset(
            sessions: try ["ann", "bob"].flatMap { user in
                try ["lift", "row"].enumerated().map { axis, exercise in
                    try syntheticSession(
                        "\(user)-\(exercise)", user: user, gesture: exercise,
                        motion: Oscillation(axis: axis, frequency: 0.5, amplitude: 2), seconds: 12)
                }
            })
        #expect(abs(TrainingRecipe.medianGestureSeconds(in: exercises) - 12) < 0.05)
        let recipe = TrainingRecipe(for: exercises)
        #expect(recipe.randomConvolutions?.history == 200)
        #expect(
            recipe.choices.suffix(2) == [
                "random convolutions over 4 s beside the network (gestures held 12 s)",
                "the motion's statistics beside the distance to reject motion it was not taught (their limit "
                    + "leaving 30 % of the held gestures' windows)",
            ])
        #expect(recipe.labelSmoothing == 0)
        let smoothed = TrainingRecipe(for: exercises, labelSmoothing: 0.1)
        #expect(smoothed.labelSmoothing == 0.1 && !smoothed.choicesText.contains("smoothing"))
        #expect(recipe.motionRejection == MotionCalibration(falseRejectRate: 0.3, perWindow: true))
        #expect(TrainingRecipe(for: exercises, motionRejection: .off).motionRejection == nil)
        let asked = TrainingRecipe(for: exercises, motionRejection: .share(0.1))
        #expect(asked.motionRejection == MotionCalibration(falseRejectRate: 0.1, perWindow: true))
        #expect(!asked.choicesText.contains("statistics"))
        #expect(TrainingRecipe(for: exercises, augmentations: []).randomConvolutions == nil)
        #expect(TrainingRecipe(for: exercises, randomConvolutions: false).randomConvolutions == nil)
        let first = TrainingRecipe.firstDefaults(for: exercises)
        #expect(first.features == TrainingData.bookFeatures && first.window == 20 && first.augmentations == [])
        #expect(first.epochs == 30 && first.batchSize == 32 && first.randomConvolutions == nil)
        #expect(first.labelSmoothing == 0)
        #expect(first.choices.isEmpty)
        #expect(TrainingRecipe.firstDefaults(for: exercises, randomConvolutions: true).randomConvolutions != nil)
    }

    /// Activities held 10 s at 10 Hz, as basic-motions': 20 samples a window, not a second's 10.
    @Test func heldMotionAtALowRateGetsTheBooksTwentySamples() throws {
        let activities = Dataset(
            sessions: try ["walk", "run"].enumerated().map { axis, activity in
                try syntheticSession(
                    "ann-\(activity)", user: "ann", gesture: activity,
                    motion: Oscillation(axis: axis, frequency: 1, amplitude: 2), rate: 10, seconds: 10)
            })
        let recipe = TrainingRecipe(for: activities)
        #expect(recipe.window == 20)
        #expect(recipe.choices.first == "window 20 (2 s at 10 Hz)")
    }

    @Test func everydayMotionRecordedAsOtherAddsTheMotionsStatisticsToTheRejection() throws {
        let other = try syntheticSession(
            "ann-other", user: "ann", gesture: "other", motion: Oscillation(axis: 2, frequency: 1, amplitude: 1),
            seconds: 30)
        let withOther = Dataset(sessions: watch.sessions + [other])
        let recipe = TrainingRecipe(for: withOther)
        #expect(recipe.motionRejection == MotionCalibration(falseRejectRate: 0))
        #expect(
            recipe.choices.last
                == "the motion's statistics beside the distance to reject motion it was not taught (everyday motion recorded as other)"
        )
        #expect(TrainingRecipe(for: withOther, motionRejection: .off).motionRejection == nil)
        #expect(TrainingRecipe(for: watch).motionRejection == nil)
        let asked = TrainingRecipe(for: watch, motionRejection: .share(0.1))
        #expect(asked.motionRejection == MotionCalibration(falseRejectRate: 0.1))
        #expect(!asked.choicesText.contains("statistics"))
    }

    @Test func askedForTheyAreKeptTooLowARateLeavesTheNetworkAlone() {
        let asked = TrainingRecipe(for: watch, augmentations: [], randomConvolutions: true)
        #expect(asked.randomConvolutions?.history == 200)
        #expect(!asked.choicesText.contains("random convolutions"))
        let slow = RandomConvolutionClassifier.Settings(rate: 2)
        #expect(slow.history == 8)
        #expect(!TrainingRecipe.choosesRandomConvolutions(slow, nil, gestureSeconds: 30))
        let fast = RandomConvolutionClassifier.Settings(rate: 2.5)
        #expect(TrainingRecipe.choosesRandomConvolutions(fast, nil, gestureSeconds: 30))
        #expect(!TrainingRecipe.choosesRandomConvolutions(fast, nil, gestureSeconds: 7.9))
    }

    @Test func settingsGivenAreKeptAndNotSaidToBeChosen() {
        let recipe = TrainingRecipe(
            for: watch, features: ["rotX"], window: 7, augmentations: [], epochs: 3, batchSize: 16, averagedEpochs: 2)
        #expect(recipe.features == ["rotX"] && recipe.window == 7 && recipe.augmentations.isEmpty)
        #expect(recipe.epochs == 3 && recipe.batchSize == 16 && recipe.averagedEpochs == 2)
        #expect(recipe.choices.isEmpty)
        let quickest = TrainingRecipe(for: watch, augmentations: [])
        #expect(quickest.epochs == 30)
        #expect(!quickest.choicesText.contains("--augment none"))
    }

    @Test func withoutGravityInTheAccelerometerTheBooksSixFeaturesAreTaken() throws {
        // A gentle wave: its user acceleration stays under 0.2 g.
        let gentle = Oscillation(axis: 0, frequency: 4, amplitude: 0.4)
        let removed = try ["ann", "bob"].map { user in
            try syntheticSession("\(user)-wave", user: user, gesture: "wave", motion: gentle, gravity: .zero)
        }
        #expect(!TrainingRecipe.measuresGravity(Dataset(sessions: removed)))
        #expect(TrainingRecipe(for: Dataset(sessions: removed)).features == TrainingData.bookFeatures)
        #expect(TrainingRecipe.measuresGravity(watch))
    }

    @Test(arguments: [(10.0, 10), (5, 5), (25, 20), (50, 20), (100, 20)])
    func theWindowIsTwentySamplesAtMostASecond(rate: Double, window: Int) {
        #expect(TrainingRecipe.window(at: rate, gestureSeconds: 4) == window)
        #expect(TrainingRecipe.window(at: rate, gestureSeconds: 7.9) == window)
    }

    /// Held motion is not blurred by a window longer than a second.
    @Test(arguments: [10.0, 5, 25, 50, 100])
    func heldMotionTakesTwentySamplesAtAnyRate(rate: Double) {
        #expect(TrainingRecipe.window(at: rate, gestureSeconds: 8) == 20)
        #expect(TrainingRecipe.window(at: rate, gestureSeconds: 60) == 20)
    }

    @Test func copiesTakeEpochsAwaySoTrainingStaysWithinTwiceTheWork() {
        #expect((0...5).map { TrainingRecipe.epochs(copies: $0) } == [30, 30, 20, 15, 12, 10])
        #expect(TrainingRecipe.epochs(copies: 100) == 1)
    }

    @Test func aLargeDatasetKeepsBatchesOf32() {
        #expect(TrainingRecipe.batchSize(chunksPerEpoch: 1_600, epochs: 10) == 32)
        #expect(TrainingRecipe.batchSize(chunksPerEpoch: 900, epochs: 10) == 18)
        #expect(TrainingRecipe.batchSize(chunksPerEpoch: 10, epochs: 10) == 4)
    }
}
