"""Count streams in the studio: the stream release session, the comparison of mechanisms, the view, the recommendation."""
