export APP_ENV=dev
export PORT=8080
