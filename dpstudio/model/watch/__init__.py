"""What the Watch shows of a run: the replay, the tree's focus, explanations, the icicle's layout, the neighbour view."""
