"""dpstudio.evaluation"""
