FLASK_APP=wsgi:app
