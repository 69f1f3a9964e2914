"""dpstudio.gui"""
