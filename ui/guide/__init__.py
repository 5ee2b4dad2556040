"""The Guide tab: guided pages that set up the live views, with exercises checked against the loaded model."""
