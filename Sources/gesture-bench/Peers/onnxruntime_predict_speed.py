"""ONNX Runtime's side of `gesture-bench predict-speed`: streaming predictions of the exported model.

Loads the ONNX file gesture-bench exported and the stream of samples it predicts from, and waits on
standard input: each line is a count of predictions to make next (each one window of raw samples and
the state the last gave back, timed around `session.run`), answered `done` once made. At the end of
input it prints `median MICROSECONDS p99 MICROSECONDS`.
"""

import sys
import time

import numpy as np
import onnxruntime


def main():
    model, stream_path, window, features = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    stream = np.fromfile(stream_path, dtype=np.float32)
    size = window * features
    state = {
        given.name: np.zeros([dimension if isinstance(dimension, int) else 1 for dimension in given.shape], np.float32)
        for given in session.get_inputs()
        if given.name.endswith("_in")
    }
    names = [output.name for output in session.get_outputs()]
    times, index = [], 0
    for line in sys.stdin:
        for _ in range(int(line)):
            start = (index * size) % (len(stream) - size + 1)
            feeds = dict(state, features=stream[start : start + size].reshape(1, window, features))
            began = time.perf_counter_ns()
            outputs = session.run(None, feeds)
            times.append((time.perf_counter_ns() - began) / 1000)
            for name, value in zip(names, outputs):
                if name.endswith("_out"):
                    state[name[: -len("_out")] + "_in"] = value
            index += 1
        print("done", flush=True)
    print(f"median {np.median(times):.3f} p99 {np.percentile(times, 99):.3f}", flush=True)


if __name__ == "__main__":
    main()
