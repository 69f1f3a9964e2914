"""What Compare shows: analytic and Monte-Carlo error, accuracy on a held-out table, the verdict in words."""
