"""Checks a model GestureLab exported with the real tools: coremltools reads the Core ML file and a
NumPy forward pass of its neural network spec gives GestureLab's probabilities; onnxruntime runs the
ONNX file and gives them too. The windows and GestureLab's probabilities come in a JSON file:
{"windows": [[window x features values, sample by sample], ...], "probabilities": [[...], ...],
"classes": [...], "features": [...]}, one stream, the LSTM state carried from window to window. For a
model that rejects unknown motion, also "unknown": [whether GestureLab rejects each window, ...] and
"margins": [[each class's distance to its nearest prototype less its limit], ...] for the classes
"margin_classes": [...] that have prototypes (for a rejection of the LSTM's hidden state; with a
test of the motion's statistics, the larger of its margin and that one); the exports' rejection
outputs must agree. A file with a state of the motion's (ONNX's motion_in, Core ML's motionIn) or of
random convolutions (ONNX's recent_in and recent_count_in, Core ML's recentIn and recentCountIn) gets
zeros first, then its _out or Out. The NumPy pass computes in float32, as Core ML's CPU does: the
random convolutions' outputs must come out bit for bit, or one equal to a bias would count.

    check_exports.py coreml MODEL.mlmodel STREAM.json [--labels-suffix _it]
    check_exports.py onnx MODEL.onnx STREAM.json
    check_exports.py compare BOOK.mlmodel STREAM.json   (prints how far GestureLab's are, checks nothing)

Prints one line of figures; exits 1 with the reason on the first difference."""

import functools
import json
import sys
import warnings

import numpy as np

TOLERANCE = 1e-5


def fail(reason):
    print(f"FAIL: {reason}")
    sys.exit(1)


def weights(params, shape=None):
    values = np.array(params.floatValue, dtype=np.float32)
    if len(values) == 0 and len(params.float16Value) > 0:
        values = np.frombuffer(params.float16Value, dtype=np.float16).astype(np.float32)
    return values if shape is None else values.reshape(shape)


def chw(x):
    """A blob as (C, H, W): its last three axes, or a vector as channels."""
    x = np.asarray(x)
    return x.reshape(x.shape[-3:]) if x.ndim >= 3 else x.reshape(-1, 1, 1)


def shaped(values, shape):
    """Weights of shape [1], [C], [1, H, W] or [C, H, W], broadcasting over (C, H, W)."""
    return values.reshape(-1, 1, 1) if len(shape) == 1 else values.reshape(list(shape))


ELEMENTWISE = {"add": np.add, "multiply": np.multiply, "max": np.maximum, "min": np.minimum}
REDUCED_AXES = {"C": (0,), "H": (1,), "W": (2,), "HW": (1, 2), "CHW": (0, 1, 2)}
REDUCTIONS = {
    "SUM": lambda x, axes: x.sum(axis=axes, keepdims=True),
    "AVG": lambda x, axes: x.mean(axis=axes, keepdims=True),
    "SUMSQUARE": lambda x, axes: (x * x).sum(axis=axes, keepdims=True),
    "MIN": lambda x, axes: x.min(axis=axes, keepdims=True),
    "MAX": lambda x, axes: x.max(axis=axes, keepdims=True),
}


def unary(p, x):
    """x <- scale x + shift (scale 0 is 1), then the function; epsilon 0 is 1e-6."""
    x = (p.scale or 1) * chw(x) + p.shift
    kind = p.Operation.Name(p.type)
    if kind == "SQRT":
        return np.sqrt(x)
    if kind == "INVERSE":
        return 1 / (x + (p.epsilon or 1e-6))
    if kind == "THRESHOLD":
        return np.maximum(p.alpha, x)
    fail(f"unary {kind} is not one this check runs")


def activation(params, x):
    kind = params.WhichOneof("NonlinearityType")
    if kind == "linear":
        return params.linear.alpha * x + params.linear.beta
    if kind == "ReLU":
        return np.maximum(x, 0)
    if kind == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if kind == "tanh":
        return np.tanh(x)
    fail(f"activation {kind} is not one this check runs")


def convolution(p, x):
    """x is (C, H, W); valid padding, one group."""
    out_channels, in_channels = p.outputChannels, p.kernelChannels
    kh, kw = p.kernelSize
    sh, sw = p.stride
    kernel = weights(p.weights, (out_channels, in_channels, kh, kw))
    _, height, width = x.shape
    oh, ow = (height - kh) // sh + 1, (width - kw) // sw + 1
    y = np.zeros((out_channels, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * sh : i * sh + kh, j * sw : j * sw + kw]
            y[:, i, j] = np.tensordot(kernel, patch, axes=([1, 2, 3], [0, 1, 2]))
    if p.hasBias:
        y += weights(p.bias)[:, None, None]
    return y


def lstm(p, x, h, c):
    n, m = p.outputVectorSize, p.inputVectorSize
    w = p.weightParams
    gate = lambda name: (
        weights(getattr(w, name + "WeightMatrix"), (n, m)) @ x
        + weights(getattr(w, name + "RecursionMatrix"), (n, n)) @ h
        + (weights(getattr(w, name + "BiasVector")) if p.params.hasBiasVectors else 0)
    )
    f_act, g_act, h_act = p.activations
    i = activation(f_act, gate("inputGate"))
    f = activation(f_act, gate("forgetGate") + (1 if p.params.forgetBias else 0))
    z = activation(g_act, gate("blockInput"))
    o = activation(f_act, gate("outputGate"))
    c = f * c + i * z
    if p.params.cellClipThreshold > 0:
        c = np.clip(c, -p.params.cellClipThreshold, p.params.cellClipThreshold)
    return o * activation(h_act, c), c


def run_spec(spec, window, states):
    """One prediction of a neural network classifier: every layer in order, by blob name, from the
    window and the states (each input after the features, by name); all its blobs."""
    blobs = {
        "features": np.asarray(window, dtype=np.float32).reshape(
            [1] + list(spec.description.input[0].type.multiArrayType.shape)[-3:]
        ),
        **states,
    }
    for layer in spec.neuralNetworkClassifier.layers:
        kind = layer.WhichOneof("layer")
        p = getattr(layer, kind)
        x = blobs[layer.input[0]] if layer.input else None
        if kind == "permute":  # of [Seq, C, H, W]
            blobs[layer.output[0]] = np.transpose(chw(x)[None], list(p.axis))
        elif kind == "convolution":
            blobs[layer.output[0]] = convolution(p, x.reshape(x.shape[-3:]))
        elif kind == "activation":
            blobs[layer.output[0]] = activation(p, x)
        elif kind == "uniDirectionalLSTM":
            h, c = lstm(p, x.reshape(-1), blobs[layer.input[1]], blobs[layer.input[2]])
            blobs[layer.output[0]], blobs[layer.output[1]], blobs[layer.output[2]] = h, h, c
        elif kind == "innerProduct":
            y = weights(p.weights, (p.outputChannels, p.inputChannels)) @ x.reshape(-1)
            blobs[layer.output[0]] = y + (weights(p.bias) if p.hasBias else 0)
        elif kind == "batchnorm":
            blobs[layer.output[0]] = weights(p.gamma) * (x - weights(p.mean)) / np.sqrt(
                weights(p.variance) + p.epsilon
            ) + weights(p.beta)
        elif kind == "softmax":
            e = np.exp(x - np.max(x))
            blobs[layer.output[0]] = e / e.sum()
        elif kind == "l2normalize":
            blobs[layer.output[0]] = x / np.sqrt(np.sum(x * x) + p.epsilon)
        elif kind == "reshape":
            if p.mode != p.CHANNEL_FIRST or len(p.targetShape) != 3:
                fail(f"layer {layer.name} reshapes other than channel first to (C, H, W)")
            blobs[layer.output[0]] = x.reshape(list(p.targetShape))
        elif kind == "reduce":
            mode, axis = p.ReduceOperation.Name(p.mode), p.ReduceAxis.Name(p.axis)
            if mode not in REDUCTIONS:
                fail(f"layer {layer.name} reduces by {mode}, which this check does not run")
            blobs[layer.output[0]] = REDUCTIONS[mode](chw(x), REDUCED_AXES[axis])
        elif kind == "scale":
            y = chw(x) * shaped(weights(p.scale), p.shapeScale)
            blobs[layer.output[0]] = y + shaped(weights(p.bias), p.shapeBias) if p.hasBias else y
        elif kind == "bias":
            blobs[layer.output[0]] = chw(x) + shaped(weights(p.bias), p.shape)
        elif kind in ELEMENTWISE:
            inputs = [chw(blobs[name]) for name in layer.input]
            if len(inputs) == 1 and kind != "max":
                blobs[layer.output[0]] = inputs[0] + p.alpha if kind == "add" else inputs[0] * p.alpha
            else:
                blobs[layer.output[0]] = functools.reduce(ELEMENTWISE[kind], inputs)
        elif kind == "unary":
            blobs[layer.output[0]] = unary(p, x)
        elif kind == "loadConstant":
            blobs[layer.output[0]] = weights(p.data, list(p.shape))
        elif kind == "concat":
            if p.sequenceConcat:
                fail(f"layer {layer.name} concatenates along the sequence")
            blobs[layer.output[0]] = np.concatenate([chw(blobs[name]) for name in layer.input], axis=0)
        elif kind == "slice":
            index = [slice(None)] * 3
            index[p.axis] = slice(p.startIndex, p.endIndex, p.stride)
            blobs[layer.output[0]] = chw(x)[tuple(index)]
        else:
            fail(f"layer {layer.name} is a {kind}, which this check does not run")
    return blobs


def check_coreml_interface(spec, stream, suffix):
    import coremltools  # noqa: F401  (load_spec below is what reads the file)

    description = spec.description
    units = spec.neuralNetworkClassifier.layers[3].uniDirectionalLSTM.outputVectorSize
    features = len(stream["features"])
    window = len(stream["windows"][0]) // features
    states = [
        ("features", [1, window, features], False),
        ("hiddenIn", [units], True),
        ("cellIn", [units], True),
    ]
    motion = [("motionIn", [2 * features + 1], True)]
    inputs = [(i.name, list(i.type.multiArrayType.shape), i.type.isOptional) for i in description.input]
    history = inputs[-2][1][0] if inputs[-1][0] == "recentCountIn" else 0
    recent = [("recentIn", [history, 1, features], True), ("recentCountIn", [1], True)]
    if inputs not in (states, states + motion, states + recent, states + motion + recent):
        fail(f"inputs {inputs} are not {states} (and {motion}, {recent})")
    for feature in description.input:
        if feature.type.multiArrayType.dataType != feature.type.multiArrayType.DOUBLE:
            fail(f"input {feature.name} is not of doubles")
    outputs = [(o.name, o.type.WhichOneof("Type")) for o in description.output]
    wanted = (
        [
            ("activityProbability", "dictionaryType"),
            ("hiddenOut", "multiArrayType"),
            ("cellOut", "multiArrayType"),
            ("activity", "stringType"),
        ]
        + ([("rejectionMargin", "multiArrayType")] if "unknown" in stream else [])
        + ([("motionOut", "multiArrayType")] if ("motionIn", *motion[0][1:]) in inputs else [])
        + ([("recentOut", "multiArrayType"), ("recentCountOut", "multiArrayType")] if history else [])
    )
    if outputs != wanted:
        fail(f"outputs {outputs} are not {wanted}")
    if description.predictedFeatureName != "activity" or description.predictedProbabilitiesName != "activityProbability":
        fail("the predicted feature names are not activity and activityProbability")
    labels = list(spec.neuralNetworkClassifier.stringClassLabels.vector)
    if labels != [c + suffix for c in stream["classes"]]:
        fail(f"class labels {labels} are not {stream['classes']} with {suffix!r}")
    metadata = description.metadata.userDefined
    for key, value in [
        ("type", "ActivityClassifier"),
        ("prediction_window", str(window)),
        ("features", ",".join(stream["features"])),
    ]:
        if metadata.get(key) != value:
            fail(f"metadata {key} is {metadata.get(key)!r}, not {value!r}")
    if spec.specificationVersion != 1 or spec.WhichOneof("Type") != "neuralNetworkClassifier":
        fail("not a specification version 1 neural network classifier")


def stream_coreml(spec, windows):
    """Each window's probabilities, margins and whether it is unknown motion: the top class's margin above 0."""
    # Every state starts at zeros and is fed back from its Out.
    states = {i.name: np.zeros(list(i.type.multiArrayType.shape), np.float32) for i in spec.description.input[1:]}
    for window in windows:
        blobs = run_spec(spec, window, states)
        states = {name: blobs[name[: -len("In")] + "Out"] for name in states}
        probabilities = blobs[spec.neuralNetworkClassifier.labelProbabilityLayerName].reshape(-1)
        margins = blobs.get("rejectionMargin")
        margins = None if margins is None else margins.reshape(-1)
        unknown = None if margins is None else bool(margins[np.argmax(probabilities)] > 0)
        yield probabilities, margins, unknown


def stream_onnx(path, windows, features):
    import onnx
    import onnxruntime

    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset < 17:
        fail(f"opset {opset} is below 17")
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    inputs = [(i.name, i.shape) for i in session.get_inputs()]
    units = inputs[1][1][2]
    window = len(windows[0]) // features
    states = [("features", [1, window, features]), ("hidden_in", [1, 1, units]), ("cell_in", [1, 1, units])]
    motion = [("motion_in", [1, 2 * features + 1])]
    recent = [("recent_in", [1, None, features]), ("recent_count_in", [1, 1])]
    shapes = [(name, [None if name == "recent_in" and axis == 1 else size for axis, size in enumerate(shape)])
              for name, shape in inputs]
    if shapes not in (states, states + motion, states + recent, states + motion + recent):
        fail(f"inputs {inputs} are not features, hidden_in, cell_in (and motion_in, recent_in, recent_count_in)")
    outputs = [o.name for o in session.get_outputs()]
    # Every state starts at zeros and is fed back from its _out.
    fed = {name: np.zeros(shape, np.float32) for name, shape in inputs[1:]}
    for values in windows:
        x = np.asarray(values, np.float32).reshape(1, window, features)
        results = dict(zip(outputs, session.run(outputs, {"features": x, **fed})))
        fed = {name: results[name[:-3] + "_out"] for name in fed}
        margins, unknown = results.get("rejection_margin"), results.get("unknown")
        if unknown is not None and (unknown.shape != (1, 1) or unknown.dtype != np.bool_):
            fail(f"unknown is {unknown.dtype} {unknown.shape}, not one bool")
        yield (
            results["probabilities"][0],
            None if margins is None else margins[0],
            None if unknown is None else bool(unknown[0, 0]),
        )


def compare(computed, stream):
    """How far the probabilities are from GestureLab's, and how often the top class is the same;
    fails unless the rejection outputs are there, when GestureLab's model rejects, and agree."""
    computed = list(computed)
    expected = np.array(stream["probabilities"], dtype=np.float64)
    probabilities = np.array([c[0] for c in computed], dtype=np.float64)
    if probabilities.shape != expected.shape:
        fail(f"{probabilities.shape} probabilities where GestureLab gave {expected.shape}")
    difference = np.abs(probabilities - expected).max()
    agreement = (probabilities.argmax(1) == expected.argmax(1)).mean()
    if "unknown" not in stream:
        if any(c[1] is not None for c in computed):
            fail("the export has rejection outputs where GestureLab's model has no rejection")
        return difference, agreement, ""
    if any(c[1] is None for c in computed):
        fail("the export has no rejection outputs")
    margin_difference = 0
    if "margins" in stream:  # GestureLab's, of the hidden state
        classes = stream["margin_classes"]
        margins = np.array([c[1][classes] for c in computed], dtype=np.float64)
        margin_difference = np.abs(margins - np.array(stream["margins"], dtype=np.float64)).max()
    if margin_difference > TOLERANCE:
        fail(f"a margin differs from GestureLab's by {margin_difference:.3g} (tolerance {TOLERANCE})")
    unknown = [c[2] for c in computed]
    differing = [i for i, (u, e) in enumerate(zip(unknown, stream["unknown"])) if u != e]
    if differing:
        fail(f"windows {differing} are unknown motion to GestureLab {[stream['unknown'][i] for i in differing]}")
    summary = f", unknown motion on {sum(unknown)} windows as GestureLab (margins within {margin_difference:.3g})"
    return difference, agreement, summary


def main():
    warnings.filterwarnings("ignore")
    kind, path, stream_path = sys.argv[1:4]
    suffix = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--labels-suffix" else ""
    with open(stream_path) as file:
        stream = json.load(file)
    windows = stream["windows"]
    if kind == "onnx":
        difference, agreement, rejection = compare(stream_onnx(path, windows, len(stream["features"])), stream)
    else:
        import coremltools

        spec = coremltools.utils.load_spec(path)
        if kind == "coreml":
            check_coreml_interface(spec, stream, suffix)
        difference, agreement, rejection = compare(stream_coreml(spec, windows), stream)
    print(
        f"{kind}: {len(windows)} windows, largest difference {difference:.3g}, same class on {agreement:.4f}"
        + rejection
    )
    if kind != "compare" and difference > TOLERANCE:
        fail(f"a probability differs from GestureLab's by {difference:.3g} (tolerance {TOLERANCE})")


if __name__ == "__main__":
    main()
