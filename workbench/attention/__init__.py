"""Attention: the jobs behind the Attention tab (an encoding with its attentions, a head's steps)."""
