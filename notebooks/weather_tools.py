"""Tools for tutorial 09: a weather lookup and a flight booking, with two descriptions of the lookup."""

from workbench import tool


@tool
def get_weather(city: str, units: str = "metric") -> dict:
    """Current weather for a city: temperature and conditions.

    Args:
        city: The city, e.g. "Paris" or "Paris, FR".
        units: "metric" (°C) or "imperial" (°F).
    """
    return {"city": city, "temperature": 21 if units == "metric" else 70, "conditions": "sunny"}


@tool
def book_flight(origin: str, destination: str, passengers: int = 1) -> str:
    """Book a flight between two cities.

    Args:
        origin: Departure city.
        destination: Arrival city.
        passengers: How many seats.
    """
    return f"Booked {passengers} seat(s) {origin} → {destination}"


#: the same tool, described tersely: the "before" of tutorial 09's description A/B (a derived tool
#: that forwards to ``get_weather``; ``workbench.derive`` also renames or hides arguments)
get_weather_terse = get_weather.with_description("Weather tool.")
