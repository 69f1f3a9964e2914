"""dpstudio.model"""
