"""dpstudio.io"""
