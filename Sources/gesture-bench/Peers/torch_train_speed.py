"""PyTorch's side of `gesture-bench train-speed`: the same model trained on the same sessions.

Reads the sessions gesture-bench wrote (sessions.json, features.f32), cuts them as GestureLab does
(windows of `window` samples flattened, chunks of `chunk` windows, the last ones padded and left out
of the loss), and trains the book's model with Adam: a dense layer on each window (the convolution
whose kernel is a window), ReLU, dropout 0.2; an LSTM over a chunk's windows; dense, batch norm,
ReLU, dropout 0.5; dense to the classes. Prints one line per epoch: `epoch N SECONDS LOSS`.
"""

import argparse
import json
import os
import time

import numpy as np
import torch
from torch import nn


class BookModel(nn.Module):
    def __init__(self, window_size, filters, units, dense, classes):
        super().__init__()
        self.convolution = nn.Linear(window_size, filters)
        self.convolution_dropout = nn.Dropout(0.2)
        self.lstm = nn.LSTM(filters, units, batch_first=True)
        self.dense = nn.Linear(units, dense)
        self.norm = nn.BatchNorm1d(dense, eps=0.001, momentum=0.1)
        self.dense_dropout = nn.Dropout(0.5)
        self.output = nn.Linear(dense, classes)

    def forward(self, chunks, real):
        hidden = self.convolution_dropout(torch.relu(self.convolution(chunks)))
        hidden, _ = self.lstm(hidden)
        hidden = self.dense(hidden[real])  # the real windows only, as GestureLab's batch norm sees them
        hidden = self.dense_dropout(torch.relu(self.norm(hidden)))
        return self.output(hidden)


def chunked(sessions, features, window, chunk):
    """Windows of every session, normalized, in chunks: inputs, labels and a mask of real windows."""
    feature_count = sessions["features"]
    samples = features.reshape(-1, feature_count)
    samples = (samples - samples.mean(axis=0)) / (samples.std(axis=0) + 1e-6)
    inputs, labels, real = [], [], []
    start = 0
    for length, label in zip(sessions["lengths"], sessions["labels"]):
        session = samples[start : start + length]
        start += length
        windows = -(-length // window)
        chunks = -(-windows // chunk)
        padded = np.zeros((chunks * chunk * window, feature_count), dtype=np.float32)
        padded[:length] = session
        inputs.append(padded.reshape(chunks, chunk, window * feature_count))
        mask = np.zeros(chunks * chunk, dtype=bool)
        mask[:windows] = True
        real.append(mask.reshape(chunks, chunk))
        labels.append(np.full((chunks, chunk), label, dtype=np.int64))
    return (torch.from_numpy(np.concatenate(inputs)), torch.from_numpy(np.concatenate(labels)),
            torch.from_numpy(np.concatenate(real)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--epochs", type=int, required=True)
    arguments = parser.parse_args()
    torch.set_num_threads(arguments.threads)
    torch.manual_seed(1)
    with open(os.path.join(arguments.data, "sessions.json")) as file:
        sessions = json.load(file)
    features = np.fromfile(os.path.join(arguments.data, "features.f32"), dtype=np.float32)
    inputs, labels, real = chunked(sessions, features, sessions["window"], sessions["chunk"])
    model = BookModel(inputs.shape[2], sessions["filters"], sessions["units"], sessions["dense"], sessions["classes"])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_function = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(1, arguments.epochs + 1):
        started = time.perf_counter()
        order = torch.randperm(inputs.shape[0])
        total, batches = 0.0, 0
        for first in range(0, len(order), sessions["batch"]):
            batch = order[first : first + sessions["batch"]]
            optimizer.zero_grad()
            loss = loss_function(model(inputs[batch], real[batch]), labels[batch][real[batch]])
            loss.backward()
            optimizer.step()
            total += loss.item()
            batches += 1
        print(f"epoch {epoch} {time.perf_counter() - started:.6f} {total / batches:.4f}", flush=True)


if __name__ == "__main__":
    main()
